//! The random model generator of the structured fuzz targets (`structured`, `constraints`): the
//! fuzzer's bytes drive a generator of well-formed `ModelProto`s (ops from the engine's registry,
//! shapes mixing static, symbolic and unknown dims, small integer initializers that feed
//! Reshape/Expand/Range targets, random wiring with occasional cycles and dangling names,
//! If/Loop/Scan subgraphs reading outer values, model-local functions). A module of each target
//! (`mod random_model;`), not a crate: cargo-fuzz builds each target as its own binary.

use arbitrary::{Result, Unstructured};
use bytes::Bytes;
use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, AttributeProto, FunctionProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// Operators of the engine's registry (`src/ops`), plus control flow and a custom op.
const OPS: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Mod",
    "Equal",
    "Less",
    "And",
    "BitShift",
    "Sum",
    "Mean",
    "Max",
    "Min",
    "Where",
    "PRelu",
    "Relu",
    "Neg",
    "Abs",
    "Clip",
    "Dropout",
    "Identity",
    "Cast",
    "CastLike",
    "Softmax",
    "Trilu",
    "CumSum",
    "Gather",
    "GatherElements",
    "GatherND",
    "ScatterND",
    "Compress",
    "NonZero",
    "Unique",
    "TopK",
    "OneHot",
    "MatMul",
    "MatMulInteger",
    "Gemm",
    "Einsum",
    "BatchNormalization",
    "LayerNormalization",
    "GroupNormalization",
    "RMSNormalization",
    "QuantizeLinear",
    "DequantizeLinear",
    "RNN",
    "GRU",
    "LSTM",
    "ReduceSum",
    "ReduceMean",
    "ArgMax",
    "Reshape",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Transpose",
    "DepthToSpace",
    "SpaceToDepth",
    "Shape",
    "Size",
    "Constant",
    "ConstantOfShape",
    "Range",
    "Slice",
    "Split",
    "Concat",
    "Expand",
    "Tile",
    "Pad",
    "Conv",
    "ConvTranspose",
    "AveragePool",
    "MaxPool",
    "GlobalAveragePool",
    "Attention",
    "SequenceConstruct",
    "SequenceAt",
    "SplitToSequence",
    "ConcatFromSequence",
    "If",
    "Loop",
    "Scan",
    "FancyCustom",
];

const ATTRS: &[&str] = &[
    "axis",
    "axes",
    "perm",
    "keepdims",
    "broadcast",
    "to",
    "value",
    "value_ints",
    "value_int",
    "shape",
    "allowzero",
    "transA",
    "transB",
    "equation",
    "kernel_shape",
    "pads",
    "strides",
    "dilations",
    "group",
    "blocksize",
    "starts",
    "ends",
    "split",
    "num_outputs",
    "k",
    "largest",
    "epsilon",
    "stash_type",
    "batch_dims",
    "hidden_size",
    "direction",
    "layout",
    "mode",
    "upper",
    "new_axis",
    "output_shape",
    "auto_pad",
    "num_scan_inputs",
];

const SYMBOLS: &[&str] = &[
    "batch",
    "seq",
    "n",
    "m",
    "seq+1",
    "2*batch",
    "(seq+1)/2",
    "n*m",
    "",
    "a-b",
    "min(n, m)",
    "x#1",
    "99999999999999999999",
    "batch % 3",
];

pub(crate) struct Gen<'u, 'd> {
    pub(crate) u: &'u mut Unstructured<'d>,
    pub(crate) counter: usize,
}

impl Gen<'_, '_> {
    pub(crate) fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    pub(crate) fn small_int(&mut self) -> Result<i64> {
        Ok(match self.u.int_in_range(0..=15u8)? {
            0 => -1,
            1 => 0,
            2 => 1 << 40,
            3 => i64::MAX,
            4 => i64::MIN,
            5 => -3,
            _ => i64::from(self.u.int_in_range(1..=6u8)?),
        })
    }

    pub(crate) fn dim(&mut self) -> Result<tensor_shape_proto::Dimension> {
        let value = match self.u.int_in_range(0..=9u8)? {
            0 => None,
            1..=3 => Some(tensor_shape_proto::dimension::Value::DimParam(
                (*self.u.choose(SYMBOLS)?).to_owned(),
            )),
            4 => Some(tensor_shape_proto::dimension::Value::DimValue(
                self.small_int()?,
            )),
            _ => Some(tensor_shape_proto::dimension::Value::DimValue(i64::from(
                self.u.int_in_range(1..=5u8)?,
            ))),
        };
        Ok(tensor_shape_proto::Dimension {
            value,
            ..Default::default()
        })
    }

    pub(crate) fn type_proto(&mut self) -> Result<Option<TypeProto>> {
        if self.u.ratio(1, 8)? {
            return Ok(None);
        }
        let shape = if self.u.ratio(1, 8)? {
            None
        } else {
            let rank = self.u.int_in_range(0..=5u8)?;
            let dim = (0..rank).map(|_| self.dim()).collect::<Result<_>>()?;
            Some(TensorShapeProto { dim })
        };
        let elem_type = *self.u.choose(&[1, 7, 6, 9, 10])?;
        Ok(Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem_type),
                shape,
            })),
            ..Default::default()
        }))
    }

    pub(crate) fn value_info(&mut self, name: String) -> Result<ValueInfoProto> {
        Ok(ValueInfoProto {
            name: Some(name),
            r#type: self.type_proto()?,
            ..Default::default()
        })
    }

    pub(crate) fn int_tensor(&mut self, name: Option<String>) -> Result<TensorProto> {
        let len = self.u.int_in_range(0..=5u8)?;
        let data: Vec<i64> = (0..len).map(|_| self.small_int()).collect::<Result<_>>()?;
        let dims = if self.u.ratio(1, 4)? && len == 1 {
            Vec::new()
        } else {
            vec![i64::from(len)]
        };
        let raw = self.u.ratio(1, 2)?;
        Ok(TensorProto {
            name,
            dims,
            data_type: Some(7),
            raw_data: raw.then(|| {
                Bytes::from(
                    data.iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect::<Vec<u8>>(),
                )
            }),
            int64_data: if raw { Vec::new() } else { data },
            ..Default::default()
        })
    }

    pub(crate) fn attribute(
        &mut self,
        op: &str,
        scope: &[String],
        depth: usize,
    ) -> Result<AttributeProto> {
        let name = match op {
            "If" => (*self.u.choose(&["then_branch", "else_branch"])?).to_owned(),
            "Loop" | "Scan" if self.u.ratio(3, 4)? => "body".to_owned(),
            _ => (*self.u.choose(ATTRS)?).to_owned(),
        };
        let mut attr = AttributeProto {
            name: Some(name.clone()),
            ..Default::default()
        };
        let kind = if name.ends_with("branch") || name == "body" {
            5
        } else {
            self.u.int_in_range(0..=11u8)?
        };
        match kind {
            0..=2 => {
                attr.r#type = Some(2);
                attr.i = Some(self.small_int()?);
            }
            3..=5 if depth < 3 => {
                attr.r#type = Some(5);
                attr.g = Some(Box::new(self.graph(scope, depth + 1)?));
            }
            6 | 7 => {
                attr.r#type = Some(7);
                let n = self.u.int_in_range(0..=5u8)?;
                attr.ints = (0..n).map(|_| self.small_int()).collect::<Result<_>>()?;
            }
            8 => {
                attr.r#type = Some(4);
                attr.t = Some(Box::new(self.int_tensor(None)?));
            }
            9 => {
                attr.r#type = Some(3);
                let s = *self.u.choose(&[
                    "ij,jk->ik",
                    "...ij,...jk",
                    "NOTSET",
                    "SAME_UPPER",
                    "a,",
                    "",
                    "ii",
                ])?;
                attr.s = Some(Bytes::from(s.as_bytes().to_vec()));
            }
            10 => {
                attr.r#type = Some(1);
                attr.f = Some(f32::from(self.u.int_in_range(0..=3u8)?) - 1.5);
            }
            // A declared type that does not match the payload.
            _ => {
                attr.r#type = Some(i32::from(self.u.int_in_range(0..=14u8)?));
                attr.i = Some(self.small_int()?);
                attr.ints = vec![1, -1];
            }
        }
        Ok(attr)
    }

    pub(crate) fn node(&mut self, scope: &mut Vec<String>, depth: usize) -> Result<NodeProto> {
        let op = *self.u.choose(OPS)?;
        let arity = self.u.int_in_range(0..=4u8)?;
        let mut input = Vec::new();
        for _ in 0..arity {
            input.push(match self.u.int_in_range(0..=19u8)? {
                0 => String::new(),
                1 => "undefined".to_owned(),
                // A forward reference: an output some later node may produce (cycles).
                2 => format!("v{}", self.counter + 1),
                _ if scope.is_empty() => String::new(),
                _ => self.u.choose(scope)?.clone(),
            });
        }
        let attr_count = self.u.int_in_range(0..=3u8)?;
        let attribute = (0..attr_count)
            .map(|_| self.attribute(op, scope, depth))
            .collect::<Result<_>>()?;
        let outputs = self.u.int_in_range(1..=3u8)?;
        let output: Vec<String> = (0..outputs).map(|_| self.fresh("v")).collect();
        scope.extend(output.iter().cloned());
        let domain = match op {
            "FancyCustom" => Some("local".to_owned()),
            _ => None,
        };
        Ok(NodeProto {
            op_type: Some(op.to_owned()),
            name: Some(self.fresh("node")),
            input,
            output,
            attribute,
            domain,
            ..Default::default()
        })
    }

    /// A graph whose nodes may read `outer` (captured values of enclosing graphs).
    pub(crate) fn graph(&mut self, outer: &[String], depth: usize) -> Result<GraphProto> {
        let mut scope: Vec<String> = outer.to_vec();
        let mut graph = GraphProto {
            name: Some(self.fresh("g")),
            ..Default::default()
        };
        for _ in 0..self.u.int_in_range(0..=3u8)? {
            let name = self.fresh("in");
            graph.input.push(self.value_info(name.clone())?);
            scope.push(name);
        }
        for _ in 0..self.u.int_in_range(0..=3u8)? {
            let name = self.fresh("init");
            graph.initializer.push(self.int_tensor(Some(name.clone()))?);
            scope.push(name);
        }
        let max_nodes = if depth == 0 { 12 } else { 4 };
        for _ in 0..self.u.int_in_range(0..=max_nodes)? {
            let node = self.node(&mut scope, depth)?;
            graph.node.push(node);
        }
        for _ in 0..self.u.int_in_range(0..=2u8)? {
            if let Some(name) = scope.last().cloned() {
                graph.output.push(self.value_info(name)?);
            }
        }
        for _ in 0..self.u.int_in_range(0..=2u8)? {
            if scope.is_empty() {
                break;
            }
            let name = self.u.choose(&scope)?.clone();
            graph.value_info.push(self.value_info(name)?);
        }
        Ok(graph)
    }

    pub(crate) fn model(&mut self) -> Result<ModelProto> {
        let graph = self.graph(&[], 0)?;
        let mut functions = Vec::new();
        if self.u.ratio(1, 4)? {
            let body = self.graph(&[], 2)?;
            functions.push(FunctionProto {
                name: Some("FancyCustom".into()),
                domain: Some("local".into()),
                input: body.input.iter().filter_map(|v| v.name.clone()).collect(),
                output: body.output.iter().filter_map(|v| v.name.clone()).collect(),
                node: body.node,
                ..Default::default()
            });
        }
        let opset = *self.u.choose(&[1, 6, 7, 9, 11, 13, 17, 18, 21, 23, 99])?;
        Ok(ModelProto {
            ir_version: Some(*self.u.choose(&[3, 4, 7, 10])?),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(opset),
            }],
            graph: Some(graph),
            functions,
            ..Default::default()
        })
    }
}
