//! Op types and domains shared between the nodes that name them.
//!
//! A model has a few dozen distinct op types and a handful of domains, over up to millions of
//! nodes. Each node holds an [`ArcStr`] (one pointer, a reference count) to its model's single
//! copy instead of its own heap string (issue 6: no per-node string allocation).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arcstr::ArcStr;

use super::Operator;

/// The distinct strings and operators seen so far.
#[derive(Debug, Default)]
pub(super) struct Interner {
    seen: HashSet<ArcStr, foldhash::fast::RandomState>,
    /// Operators by the addresses of their interned domain and op type, and their opset.
    operators: HashMap<(usize, usize, Option<i64>), Arc<Operator>, foldhash::fast::RandomState>,
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

    /// The shared operator `(domain, op_type, opset)`, made on first sight: a node holds one
    /// pointer to it instead of two strings and a version (issue 19: a smaller node).
    pub(super) fn operator(
        &mut self,
        domain: &str,
        op_type: &str,
        opset: impl FnOnce(&str) -> Option<i64>,
    ) -> Arc<Operator> {
        let domain = self.get(domain);
        let op_type = self.get(op_type);
        let opset = opset(&domain);
        let key = (domain.as_ptr() as usize, op_type.as_ptr() as usize, opset);
        self.operators
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Operator {
                    domain,
                    op_type,
                    opset,
                })
            })
            .clone()
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
    fn equal_operators_share_one_copy() {
        let mut interner = Interner::default();
        let first = interner.operator("", "Add", |_| Some(13));
        let again = interner.operator("", "Add", |_| Some(13));
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!((&*first.op_type, first.opset), ("Add", Some(13)));
        assert!(!Arc::ptr_eq(
            &first,
            &interner.operator("", "Add", |_| Some(14))
        ));
        assert!(!Arc::ptr_eq(
            &first,
            &interner.operator("com.microsoft", "Add", |_| Some(13))
        ));
    }

    #[test]
    fn empty_text_is_the_static_empty_string() {
        let mut interner = Interner::default();
        assert!(interner.get("").is_empty());
        assert!(interner.seen.is_empty());
    }
}
