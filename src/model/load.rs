//! Reading a model: a memory-mapped file, a byte buffer or standard input, decoded by prost from a
//! `Bytes` buffer so that tensor payloads are slices of the input, never copies. Tensors stored as
//! external data are never opened: their shapes come from `dims`.

use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use memmap2::Mmap;
use prost::Message;

use super::graph::{self as build, Feed};
use super::wire::{self, WireFault, WireProblem};
use super::Model;
use crate::error::{Limits, LoadError};
use crate::proto::{onnx_lean, ModelProto};

/// Where a model's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadFrom {
    /// A file, memory-mapped.
    Path(PathBuf),
    /// Standard input, read to its end.
    Stdin,
}

impl ReadFrom {
    /// `-` means standard input; anything else is a path.
    pub(crate) fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            ReadFrom::Stdin
        } else {
            ReadFrom::Path(arg.to_path_buf())
        }
    }

    /// The name diagnostics use for this source: standard input is `-`, as it was given and as
    /// the reports, their findings and baselines name it, so that one model has one name
    /// whether it loads or not.
    pub(crate) fn display_path(&self) -> PathBuf {
        match self {
            ReadFrom::Path(path) => path.clone(),
            ReadFrom::Stdin => PathBuf::from("-"),
        }
    }

    /// Reads the source's bytes without copying a mapped file.
    pub(crate) fn read(&self) -> Result<Bytes, LoadError> {
        match self {
            ReadFrom::Stdin => {
                let mut buffer = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buffer)
                    .map_err(|source| LoadError::Io {
                        path: self.display_path(),
                        source,
                    })?;
                Ok(Bytes::from(buffer))
            }
            ReadFrom::Path(path) => map_file(path).map(|(bytes, _)| bytes),
        }
    }

    /// [`ReadFrom::read`], plus the map of a file large enough for its pages to be given back
    /// once the graphs are built.
    fn read_releasable(&self) -> Result<(Bytes, Option<Arc<Mmap>>), LoadError> {
        match self {
            ReadFrom::Stdin => self.read().map(|bytes| (bytes, None)),
            ReadFrom::Path(path) => map_file(path),
        }
    }
}

/// A shared read-only map, the owner of the `Bytes` that slice it.
struct SharedMap(Arc<Mmap>);

impl AsRef<[u8]> for SharedMap {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Files up to this size are left to the kernel's default readahead.
const READ_WHOLE: usize = 64 << 20;

fn map_file(path: &Path) -> Result<(Bytes, Option<Arc<Mmap>>), LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    if metadata.is_dir() {
        return Err(LoadError::Directory {
            path: path.to_path_buf(),
        });
    }
    if metadata.len() == 0 {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    let file = File::open(path).map_err(io)?;
    // SAFETY: the map is read-only and private to this process. Like every tool that maps its
    // input, we rely on the file not being truncated while it is linted; that is the price of
    // never copying (or even paging in) weight bytes.
    #[allow(unsafe_code)]
    let map = unsafe { Mmap::map(&file) }.map_err(io)?;
    // The scan touches a few bytes around each weight payload it skips; the kernel's readahead
    // would page in tens of kilobytes of weights with each (17 MB of the 1.5 GB benchmark
    // model). Random access reads only the pages touched, and the node lists, read end to end,
    // are asked for ahead. Below `READ_WHOLE` the default readahead reading it all costs less
    // than the walk that finds the node lists. Advice only: ignored if refused.
    let large = map.len() > READ_WHOLE;
    #[cfg(unix)]
    if large {
        let _ = map.advise(memmap2::Advice::Random);
        super::prefetch::read_nodes_ahead(&map, |window| {
            let _ = map.advise_range(memmap2::Advice::WillNeed, window.start, window.len());
        });
    }
    let map = Arc::new(map);
    let releasable = large.then(|| Arc::clone(&map));
    Ok((Bytes::from_owner(SharedMap(map)), releasable))
}

/// Gives the mapped file's pages back to the kernel once the graphs are built (issue 6: peak
/// memory). Inference and the checks read only a few names and small constants from the file;
/// those pages fault back in from the page cache, where all of them stay. Advice only.
fn release_pages(map: &Mmap) {
    // SAFETY: MADV_DONTNEED on a private map that is never written only unmaps clean pages; the
    // next read of one maps the file's page again. Its contents are those the map already
    // relies on (see `map_file`), so no reference into the map sees different bytes.
    #[cfg(unix)]
    #[allow(unsafe_code)]
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
    #[cfg(not(unix))]
    let _ = map;
}

/// Loads the model at `path` (`-` for standard input).
#[cfg(test)]
pub(crate) fn load_path(path: &Path, limits: Limits) -> Result<Model, LoadError> {
    load_path_timed(path, limits, &mut LoadTimes::default(), None)
}

/// Loads a model from bytes; `path` only names it in errors. Weight payloads stay slices of
/// `bytes`.
#[cfg(any(test, feature = "bench"))]
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub fn load_bytes(bytes: Bytes, path: &Path, limits: Limits) -> Result<Model, LoadError> {
    load_bytes_timed(bytes, path, limits, &mut LoadTimes::default(), None)
}

/// Wall time of each loading stage (the benchmark's `--timings`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LoadTimes {
    /// Opening and mapping the file (or reading standard input).
    pub read: Duration,
    /// The wire-format pre-scan.
    pub scan: Duration,
    /// prost's decode.
    pub decode: Duration,
    /// Value tables, DAGs and topological orders; with inference beside the builder, without
    /// [`LoadTimes::waited`].
    pub graph: Duration,
    /// With inference beside the builder ([`super::graph::Feed`]): how long the builder waited
    /// for it once every node of the main graph was built (the inference of the last chunks).
    pub waited: Duration,
    /// For a file whose pages are given back once its graphs are built: the process's resident
    /// file-backed memory (`RssFile`, kB, Linux) just before, which is when most of the file is
    /// resident. Shows that weight payloads were never paged in.
    pub file_resident_kb: Option<u64>,
}

/// [`load_path`], recording the time of each stage in `times`; with a `feed`, the main graph's
/// nodes are inferred beside the builder.
pub(crate) fn load_path_timed(
    path: &Path,
    limits: Limits,
    times: &mut LoadTimes,
    feed: Option<Feed>,
) -> Result<Model, LoadError> {
    let start = Instant::now();
    let source = ReadFrom::from_arg(path);
    let (bytes, map) = source.read_releasable()?;
    times.read = start.elapsed();
    let release = |range: Range<usize>| {
        if let Some(map) = &map {
            release_range(map, range);
        }
    };
    let model = load_bytes_releasing(bytes, &source.display_path(), limits, times, &release, feed);
    let graph_heavy = model
        .as_ref()
        .is_ok_and(|model| model.node_count() >= RELEASE_FROM_NODES);
    if let Some(map) = map.filter(|_| graph_heavy) {
        times.file_resident_kb = resident_file_kb();
        release_pages(&map);
    }
    model
}

/// Gives back the pages of `range` of the mapped file: the node list already built, while the
/// graph is being built (issue 19: the peak of a million-node model is reached while its graph
/// is built, with the whole node list resident). Pages only partly in `range` are kept. The
/// names kept as slices of those pages fault back in from the page cache when read. Advice only.
fn release_range(map: &Mmap, range: Range<usize>) {
    const PAGE: usize = 4096;
    let start = range.start.div_ceil(PAGE).saturating_mul(PAGE);
    let end = (range.end.min(map.len()) / PAGE) * PAGE;
    if start >= end {
        return;
    }
    // SAFETY: as in `release_pages`: MADV_DONTNEED on a private map that is never written
    // only unmaps clean pages, whose next read maps the same file contents again.
    #[cfg(unix)]
    #[allow(unsafe_code)]
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
    };
}

/// Node count from which a large file's pages are given back after loading. A model with fewer
/// nodes had few pages read (its bulk is weights, never paged in), and faulting back the ones
/// inference reads would cost more than it frees.
const RELEASE_FROM_NODES: usize = 100_000;

/// Resident size of the process's file-backed mappings (`RssFile` in `/proc/self/status`, kB;
/// Linux only): how much of the mapped models (and of the program) was paged in.
pub(crate) fn resident_file_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("RssFile:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// [`load_bytes`], recording the time of each stage in `times`; with a `feed`, the main
/// graph's nodes are inferred beside the builder.
pub(crate) fn load_bytes_timed(
    bytes: Bytes,
    path: &Path,
    limits: Limits,
    times: &mut LoadTimes,
    feed: Option<Feed>,
) -> Result<Model, LoadError> {
    load_bytes_releasing(bytes, path, limits, times, &|_| {}, feed)
}

/// [`load_bytes_timed`], calling `release` with the byte ranges of the main graph's node list
/// once they are built (only for a graph of [`RELEASE_FROM_NODES`] nodes or more).
fn load_bytes_releasing(
    bytes: Bytes,
    path: &Path,
    limits: Limits,
    times: &mut LoadTimes,
    release: &(dyn Fn(Range<usize>) + Sync),
    feed: Option<Feed>,
) -> Result<Model, LoadError> {
    if bytes.is_empty() {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    if let Some(pointer) = super::lfs::pointer(&bytes) {
        return Err(LoadError::LfsPointer {
            path: path.to_path_buf(),
            size: pointer.size,
        });
    }
    let start = Instant::now();
    let layout = wire::scan(&bytes, limits).map_err(|fault| wire_error(path, fault, limits))?;
    times.scan = start.elapsed();
    let start = Instant::now();
    let proto =
        onnx_lean::ModelProto::decode(bytes.clone()).map_err(|error| LoadError::Decode {
            path: path.to_path_buf(),
            offset: 0,
            context: "ModelProto".into(),
            problem: error.to_string(),
        })?;
    times.decode = start.elapsed();
    let start = Instant::now();
    let heavy = layout.graph.nodes.len() >= RELEASE_FROM_NODES;
    let release = heavy.then_some(release);
    let mut waited = Duration::ZERO;
    let piped = feed.map(|feed| (feed, &mut waited));
    let model = build::build(
        proto.into(),
        Some((bytes, layout)),
        path,
        limits,
        release,
        piped,
    );
    times.graph = start.elapsed().saturating_sub(waited);
    times.waited = waited;
    model
}

/// Builds the graphs of an already decoded model (no byte spans are known).
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub fn load_proto(proto: ModelProto, limits: Limits) -> Result<Model, LoadError> {
    build::build(proto.into(), None, Path::new("<model>"), limits, None, None)
}

fn wire_error(path: &Path, fault: WireFault, limits: Limits) -> LoadError {
    let path = path.to_path_buf();
    let limit = |what, limit| LoadError::Limit {
        path: path.clone(),
        what,
        limit,
        offset: fault.offset,
    };
    let problem = match fault.problem {
        WireProblem::TooDeep(_) => return limit("message nesting depth", limits.max_depth),
        WireProblem::RankTooLarge(_) => return limit("rank", limits.max_rank),
        WireProblem::TooManyNodes(_) => return limit("node count", limits.max_nodes),
        WireProblem::Truncated => "the data ends in the middle of a field (truncated file?)".into(),
        WireProblem::BadTag(tag) => format!("invalid field tag {tag:#x}"),
        WireProblem::BadVarint => "varint longer than 10 bytes".into(),
        WireProblem::WrongWireType { field, wire } => {
            format!("field {field} should be a message but has wire type {wire}")
        }
    };
    LoadError::Decode {
        path,
        offset: fault.offset,
        context: fault.path,
        problem,
    }
}
