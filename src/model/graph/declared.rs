//! The values a graph declares: its inputs and initializers, defined before its nodes, and the
//! types its `value_info` and outputs declare, set once the nodes have defined their values.

use super::super::parts::TensorSource;
use super::super::text::RawText;
use super::super::{GraphId, Initializer, Origin, ProblemKind, ValueId, NO_INITIALIZER};
use super::scopes::Captures;
use super::table::Table;
use super::tensors::{read_initializer, Released};
use super::Builder;
use crate::error::LoadError;
use crate::proto::{SparseTensorProto, ValueInfoProto};

impl Builder<'_> {
    /// Defines the graph's inputs, first of its values; a name given twice is reported.
    pub(super) fn declare_inputs(
        &mut self,
        id: GraphId,
        declared: Vec<ValueInfoProto>,
        table: &mut Table,
    ) -> Result<Vec<ValueId>, LoadError> {
        for input in declared {
            self.check_declared_rank(input.r#type.as_ref())?;
            let name = input.name.unwrap_or_default();
            let text = self.add_text(table, &RawText::Owned(name))?;
            let (value, fresh) = table.define(text, Origin::Input);
            if !fresh {
                let name = table.name_of(value).to_owned();
                self.problem(id, None, ProblemKind::DuplicateProducer { name });
            } else if let Some(slot) = table.values.get_mut(value.0 as usize) {
                slot.declared = input.r#type.map(Box::new);
            }
        }
        Ok((0..table.values.len())
            .filter_map(|i| u32::try_from(i).ok().map(ValueId))
            .collect())
    }

    /// Defines the graph's initializers (dense, then sparse) and returns their tensors; a name
    /// defined twice is reported, except an initializer that is a graph input's default.
    pub(super) fn add_initializers(
        &mut self,
        id: GraphId,
        path: &str,
        initializer: Vec<TensorSource>,
        sparse_initializer: Vec<SparseTensorProto>,
        table: &mut Table,
    ) -> Result<Vec<Initializer>, LoadError> {
        let mut initializers = Vec::with_capacity(initializer.len());
        let (file, file_path) = (self.file.clone(), self.path);
        // The main graph's tensors once their headers are read: a model with its own weights
        // has most of its file there, paged in by the scan (issue 19: peak memory). Their names
        // are then copied, so that resolving inputs does not page them in again.
        let mut read_tensors = Released::new(self.release.filter(|_| id == GraphId(0)));
        let copy_names = read_tensors.active();
        let dense = initializer.into_iter().enumerate().map(|(index, source)| {
            let read = read_initializer(source, file.as_ref(), copy_names, file_path, path, index)?;
            if let Some(range) = read.range {
                read_tensors.add(range);
            }
            Ok((read.name, read.initializer, Origin::Initializer))
        });
        let sparse = sparse_initializer.into_iter().map(|sparse| {
            let values = sparse.values.unwrap_or_default();
            let tensor = Initializer::header(values.data_type, sparse.dims);
            Ok((
                RawText::Owned(values.name.unwrap_or_default()),
                tensor,
                Origin::SparseInitializer,
            ))
        });
        for entry in dense.chain(sparse) {
            let (name, tensor, origin): (RawText, Initializer, Origin) = entry?;
            self.check_dims(table, &name, &tensor.dims)?;
            let text = self.add_text(table, &name)?;
            // Its type is its tensor's, read from the tensor when needed: no declaration is
            // built (a model with its own weights has one initializer per two nodes).
            let value = table.push_pending(text, origin, None);
            if let Some(slot) = table.values.get_mut(value.0 as usize) {
                slot.initializer = u32::try_from(initializers.len()).unwrap_or(NO_INITIALIZER);
            }
            initializers.push(tensor);
        }
        // Indexed together, in the index's order (issue 19: 445k initializers in one model).
        // No id of theirs was given out yet, so none needs renumbering.
        let (duplicates, _) = table.index_pending();
        for (removed, first) in duplicates {
            match table.values.get_mut(first.0 as usize) {
                // IR < 4: an initializer doubles as the default of a graph input.
                Some(slot) if slot.origin == Origin::Input => {
                    slot.initializer = removed.initializer;
                }
                _ => {
                    let name = table.name_of(first).to_owned();
                    self.problem(id, None, ProblemKind::DuplicateProducer { name });
                }
            }
        }
        drop(read_tensors);
        Ok(initializers)
    }

    /// Sets the types `value_info` declares, on values that have none yet.
    pub(super) fn declare_value_info(
        &self,
        value_info: Vec<ValueInfoProto>,
        table: &mut Table,
    ) -> Result<(), LoadError> {
        for info in value_info {
            self.check_declared_rank(info.r#type.as_ref())?;
            let name = info.name.unwrap_or_default();
            if let Some(slot) = table
                .lookup(name.as_bytes())
                .and_then(|v| table.values.get_mut(v.0 as usize))
            {
                if slot.declared.is_none() && !slot.is_initializer() {
                    slot.declared = info.r#type.map(Box::new);
                }
            }
        }
        Ok(())
    }

    /// Finds the graph's outputs (in an enclosing graph too) and sets the types they declare.
    pub(super) fn declare_outputs(
        &mut self,
        id: GraphId,
        declared: Vec<ValueInfoProto>,
        table: &mut Table,
        captures: &mut Captures,
        parent_id: Option<GraphId>,
    ) -> Result<Vec<ValueId>, LoadError> {
        let mut outputs = Vec::with_capacity(declared.len());
        for output in declared {
            self.check_declared_rank(output.r#type.as_ref())?;
            let name = RawText::Owned(output.name.unwrap_or_default());
            let value = self.resolve(id, &name, table, captures, None, parent_id)?;
            if let Some(slot) = table.values.get_mut(value.0 as usize) {
                if (slot.declared.is_none() && !slot.is_initializer())
                    || matches!(slot.origin, Origin::Node { .. })
                {
                    slot.declared = output.r#type.map(Box::new).or(slot.declared.take());
                }
            }
            outputs.push(value);
        }
        Ok(outputs)
    }
}
