//! The loader's limits on declared ranks and initializer dims, checked as the graph is built.

use super::super::text::RawText;
use super::table::Table;
use super::Builder;
use crate::error::LoadError;
use crate::proto::{type_proto, TypeProto};

impl Builder<'_> {
    /// The rank limit on declared shapes. The wire pre-scan enforces it on bytes; an already
    /// decoded model (`lint_model`) is only checked here.
    pub(super) fn check_declared_rank(
        &self,
        declared: Option<&TypeProto>,
    ) -> Result<(), LoadError> {
        let rank = match declared.and_then(|t| t.value.as_ref()) {
            Some(type_proto::Value::TensorType(t)) => t.shape.as_ref().map(|s| s.dim.len()),
            Some(type_proto::Value::SparseTensorType(t)) => t.shape.as_ref().map(|s| s.dim.len()),
            _ => None,
        };
        if rank.unwrap_or(0) > self.limits.max_rank {
            return Err(LoadError::Limit {
                path: self.path.to_path_buf(),
                what: "rank",
                limit: self.limits.max_rank,
                offset: 0,
            });
        }
        Ok(())
    }

    pub(super) fn check_dims(
        &self,
        table: &Table,
        name: &RawText,
        dims: &[i64],
    ) -> Result<(), LoadError> {
        let invalid = |problem| LoadError::InvalidDims {
            path: self.path.to_path_buf(),
            tensor: String::from_utf8_lossy(table.raw_bytes(name)).into_owned(),
            dims: dims.iter().copied().take(16).collect(),
            problem,
        };
        if dims.len() > self.limits.max_rank {
            return Err(LoadError::Limit {
                path: self.path.to_path_buf(),
                what: "rank",
                limit: self.limits.max_rank,
                offset: 0,
            });
        }
        if dims.iter().any(|&dim| dim < 0) {
            return Err(invalid("negative dim"));
        }
        dims.iter()
            .try_fold(1i64, |acc, &dim| acc.checked_mul(dim))
            .map(|_| ())
            .ok_or_else(|| invalid("element count overflows a 64-bit integer"))
    }
}
