//! Op types and domains shared between the nodes that name them.
//!
//! A model has a few dozen distinct op types and a handful of domains, over up to millions of
//! nodes. Each node holds an [`ArcStr`] (one pointer, a reference count) to its model's single
//! copy instead of its own heap string (issue 6: no per-node string allocation).

use std::collections::HashSet;

use arcstr::ArcStr;

/// The distinct strings seen so far.
#[derive(Debug, Default)]
pub(super) struct Interner {
    seen: HashSet<ArcStr, foldhash::fast::RandomState>,
}

impl Interner {
    /// The shared copy of `text`, made on first sight.
    pub(super) fn get(&mut self, text: &str) -> ArcStr {
        if text.is_empty() {
            // Static: no allocation, no reference count.
            return ArcStr::new();
        }
        if let Some(shared) = self.seen.get(text) {
            return shared.clone();
        }
        let shared = ArcStr::from(text);
        self.seen.insert(shared.clone());
        shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_share_one_copy() {
        let mut interner = Interner::default();
        let first = interner.get("MatMul");
        let again = interner.get(&String::from("MatMul"));
        assert!(ArcStr::ptr_eq(&first, &again));
        assert_eq!(again, "MatMul");
        assert!(!ArcStr::ptr_eq(&first, &interner.get("Add")));
    }

    #[test]
    fn empty_text_is_the_static_empty_string() {
        let mut interner = Interner::default();
        assert!(interner.get("").is_empty());
        assert!(interner.seen.is_empty());
    }
}
