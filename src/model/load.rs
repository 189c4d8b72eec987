//! Reading a model: a memory-mapped file, a byte buffer or standard input, decoded by prost from a
//! `Bytes` buffer so that tensor payloads are slices of the input, never copies. Tensors stored as
//! external data are never opened: their shapes come from `dims`.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use prost::Message;

use super::graph as build;
use super::wire::{self, WireFault, WireProblem};
use super::Model;
use crate::error::{Limits, LoadError};
use crate::proto::{onnx_lean, ModelProto};

/// Where a model's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file, memory-mapped.
    Path(PathBuf),
    /// Standard input, read to its end.
    Stdin,
}

impl Source {
    /// `-` means standard input; anything else is a path.
    pub fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            Source::Stdin
        } else {
            Source::Path(arg.to_path_buf())
        }
    }

    /// The name diagnostics use for this source.
    pub fn display_path(&self) -> PathBuf {
        match self {
            Source::Path(path) => path.clone(),
            Source::Stdin => PathBuf::from("<stdin>"),
        }
    }

    /// Reads the source's bytes without copying a mapped file.
    pub fn read(&self) -> Result<Bytes, LoadError> {
        match self {
            Source::Stdin => {
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
            Source::Path(path) => map_file(path),
        }
    }
}

/// Files up to this size are left to the kernel's default readahead.
const READ_WHOLE: usize = 64 << 20;

fn map_file(path: &Path) -> Result<Bytes, LoadError> {
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
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    // The scan touches a few bytes around each weight payload it skips; the kernel's readahead
    // would page in tens of kilobytes of weights with each (17 MB of the 1.5 GB benchmark
    // model). Random access reads only the pages touched, and the node lists, read end to end,
    // are asked for ahead. Below `READ_WHOLE` the default readahead reading it all costs less
    // than the walk that finds the node lists. Advice only: ignored if refused.
    #[cfg(unix)]
    if map.len() > READ_WHOLE {
        let _ = map.advise(memmap2::Advice::Random);
        super::prefetch::read_nodes_ahead(&map, |window| {
            let _ = map.advise_range(memmap2::Advice::WillNeed, window.start, window.len());
        });
    }
    Ok(Bytes::from_owner(map))
}

/// Loads the model at `path` (`-` for standard input).
pub fn load_path(path: &Path, limits: Limits) -> Result<Model, LoadError> {
    load_path_timed(path, limits, &mut LoadTimes::default())
}

/// Loads a model from bytes; `path` only names it in errors. Weight payloads stay slices of
/// `bytes`.
pub fn load_bytes(bytes: Bytes, path: &Path, limits: Limits) -> Result<Model, LoadError> {
    load_bytes_timed(bytes, path, limits, &mut LoadTimes::default())
}

/// Wall time of each loading stage (the benchmark's `--timings`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadTimes {
    /// Opening and mapping the file (or reading standard input).
    pub read: Duration,
    /// The wire-format pre-scan.
    pub scan: Duration,
    /// prost's decode.
    pub decode: Duration,
    /// Value tables, DAGs and topological orders.
    pub graph: Duration,
}

/// [`load_path`], recording the time of each stage in `times`.
pub fn load_path_timed(
    path: &Path,
    limits: Limits,
    times: &mut LoadTimes,
) -> Result<Model, LoadError> {
    let start = Instant::now();
    let source = Source::from_arg(path);
    let bytes = source.read()?;
    times.read = start.elapsed();
    load_bytes_timed(bytes, &source.display_path(), limits, times)
}

/// [`load_bytes`], recording the time of each stage in `times`.
pub fn load_bytes_timed(
    bytes: Bytes,
    path: &Path,
    limits: Limits,
    times: &mut LoadTimes,
) -> Result<Model, LoadError> {
    if bytes.is_empty() {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    let start = Instant::now();
    let layout = wire::scan(&bytes, limits).map_err(|fault| wire_error(path, fault, limits))?;
    times.scan = start.elapsed();
    let start = Instant::now();
    let proto = onnx_lean::ModelProto::decode(bytes).map_err(|error| LoadError::Decode {
        path: path.to_path_buf(),
        offset: 0,
        context: "ModelProto".into(),
        problem: error.to_string(),
    })?;
    times.decode = start.elapsed();
    let start = Instant::now();
    let model = build::build(proto.into(), Some(layout), path, limits);
    times.graph = start.elapsed();
    model
}

/// Builds the graphs of an already decoded model (no byte spans are known).
pub fn load_proto(proto: ModelProto, limits: Limits) -> Result<Model, LoadError> {
    build::build(proto.into(), None, Path::new("<model>"), limits)
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
