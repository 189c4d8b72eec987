//! ONNX's `onnx/defs/rnn` operators: `RNN`, `GRU`, `LSTM`. A rule sits in the folder of the
//! `onnx/defs/<section>` that defines its operator.

pub(crate) mod recurrent;
pub(crate) mod recurrent_inputs;
