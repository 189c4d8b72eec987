//! The command's progress line on a long run (issue 35, item 4): `120/2000 files, 37 findings` on
//! standard error, redrawn in place, when standard error is a terminal and the run is long
//! (many files, or a few that take a while). Never when standard error is piped or redirected:
//! a log or a CI's captured output gets no carriage returns. The document formats write to
//! standard output, which the line never touches; it is erased before the report is written.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Runs of at least this many files show the line from the start.
const MANY_FILES: usize = 20;
/// Smaller runs (of more than one file) show it once they have taken this long.
const LONG_RUN: Duration = Duration::from_secs(2);
/// The line is redrawn at most this often.
const REDRAW: Duration = Duration::from_millis(100);

/// Whether a run shows the line now: standard error is a terminal, and the run has many files
/// or has been going for a while.
pub(crate) fn shows(stderr_is_terminal: bool, files: usize, elapsed: Duration) -> bool {
    stderr_is_terminal && files > 1 && (files >= MANY_FILES || elapsed >= LONG_RUN)
}

/// The counts of a run in progress, shared by the threads that lint its files.
pub(crate) struct Progress {
    total: usize,
    terminal: bool,
    started: Instant,
    done: AtomicUsize,
    findings: AtomicUsize,
    drawn: AtomicBool,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    /// A run of `total` files; `terminal` says whether standard error is one.
    pub(crate) fn new(total: usize, terminal: bool) -> Self {
        Progress {
            total,
            terminal,
            started: Instant::now(),
            done: AtomicUsize::new(0),
            findings: AtomicUsize::new(0),
            drawn: AtomicBool::new(false),
            last: Mutex::new(None),
        }
    }

    /// One more file done, with its findings.
    pub(crate) fn tick(&self, findings: usize) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let found = self.findings.fetch_add(findings, Ordering::Relaxed) + findings;
        if !shows(self.terminal, self.total, self.started.elapsed()) {
            return;
        }
        // One thread draws at a time; the others skip rather than wait.
        let Ok(mut last) = self.last.try_lock() else {
            return;
        };
        let now = Instant::now();
        if last.is_some_and(|at| now.duration_since(at) < REDRAW) && done < self.total {
            return;
        }
        *last = Some(now);
        let s = if found == 1 { "" } else { "s" };
        let mut err = std::io::stderr().lock();
        // `\x1b[K` erases what a longer line left.
        let _ = write!(
            err,
            "\r{done}/{} files, {found} finding{s}\x1b[K",
            self.total
        );
        let _ = err.flush();
        self.drawn.store(true, Ordering::Relaxed);
    }

    /// Erases the line, if one was drawn, before the report is written.
    pub(crate) fn clear(&self) {
        if self.drawn.load(Ordering::Relaxed) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_never_shows_the_line() {
        assert!(!shows(false, 10_000, Duration::from_secs(600)));
    }

    #[test]
    fn a_terminal_shows_it_for_many_files_or_a_long_run() {
        assert!(shows(true, MANY_FILES, Duration::ZERO));
        assert!(!shows(true, MANY_FILES - 1, Duration::from_millis(500)));
        assert!(shows(true, 2, LONG_RUN));
        // One file is its own progress: the report follows.
        assert!(!shows(true, 1, Duration::from_secs(600)));
    }

    #[test]
    fn counts_add_up_without_drawing_when_not_a_terminal() {
        let progress = Progress::new(3, false);
        progress.tick(2);
        progress.tick(0);
        progress.tick(5);
        assert_eq!(progress.done.load(Ordering::Relaxed), 3);
        assert_eq!(progress.findings.load(Ordering::Relaxed), 7);
        assert!(!progress.drawn.load(Ordering::Relaxed));
    }
}
