//! The conditions one inference run may state about broadcasts (`broadcast-work` in
//! `limits.rs`).
//!
//! An axis where different symbolic sizes meet costs a clause, and each clause is simplified,
//! solved, folded and written out later: about 36 µs in all. A 175 KB file of 990 `Add`s over
//! rotations of one rank-1000 shape holds a million such axes, and took 36 s and 1.5 GB
//! (issue 34's bound for it is 1.2 s). Nothing else bounds their number, since each `Add` is a
//! few bytes of the file while its axes come from one shared shape. So a run counts them, and
//! past the allowance a broadcast states no condition: its static clashes are still found
//! (they cost nothing), its output dims are those the static sizes prove, and the node is named
//! in an `I2`. Axes where the sizes agree, the common case of exported models, are not
//! counted.

use std::cell::Cell;

use crate::limits::BROADCAST_WORK;

/// The symbolic axes a run may still state conditions for, and how many broadcasts went
/// without.
#[derive(Debug)]
pub(crate) struct Allowance {
    left: Cell<usize>,
    shortened: Cell<usize>,
}

impl Default for Allowance {
    fn default() -> Allowance {
        Allowance::new(BROADCAST_WORK)
    }
}

impl Allowance {
    /// An allowance of `axes`.
    pub(crate) fn new(axes: usize) -> Allowance {
        Allowance {
            left: Cell::new(axes),
            shortened: Cell::new(0),
        }
    }

    /// No bound: for a broadcast decided outside an inference run (tests, one-off helpers).
    #[cfg(test)]
    pub(crate) fn unlimited() -> Allowance {
        Allowance::new(usize::MAX)
    }

    /// Takes one axis; `false` when none is left.
    pub(crate) fn take(&self) -> bool {
        let left = self.left.get();
        if left == 0 {
            return false;
        }
        self.left.set(left - 1);
        true
    }

    /// Takes `axes` at once; `false` (nothing taken) when fewer are left.
    pub(crate) fn take_many(&self, axes: usize) -> bool {
        match self.left.get().checked_sub(axes) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => false,
        }
    }

    /// Records that a broadcast went without its condition.
    pub(crate) fn shorten(&self) {
        self.shortened.set(self.shortened.get().saturating_add(1));
    }

    /// How many broadcasts went without their condition so far (compare before and after a
    /// node to know whether it did).
    pub(crate) fn shortened(&self) -> usize {
        self.shortened.get()
    }
}

#[cfg(test)]
mod tests {
    use super::Allowance;

    #[test]
    fn gives_what_it_holds_then_refuses() {
        let allowance = Allowance::new(2);
        assert!(allowance.take());
        assert!(allowance.take());
        assert!(!allowance.take());
        assert!(allowance.take_many(0));
        assert!(!Allowance::new(2).take_many(3));
        assert!(Allowance::new(2).take_many(2));
        assert_eq!(allowance.shortened(), 0);
        allowance.shorten();
        assert_eq!(allowance.shortened(), 1);
    }
}
