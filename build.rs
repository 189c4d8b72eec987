//! Compiles `proto/onnx.proto` (the ONNX schema, verbatim) and `proto/lean.proto` (our
//! node-as-bytes views of the model, graph and function messages) into Rust with protox (pure
//! Rust, no `protoc`) and prost-build.
//! `bytes` fields become `bytes::Bytes` so that decoding from a `Bytes` buffer slices tensor
//! payloads and node encodings out of the input instead of copying them.

use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    println!("cargo:rerun-if-changed=proto/lean.proto");
    let descriptors = protox::compile(["proto/onnx.proto", "proto/lean.proto"], ["proto"])?;
    prost_build::Config::new()
        .bytes(["."])
        // An attribute holds one value; inline, the rarely set message-typed ones made every
        // AttributeProto 1,672 bytes (most attributes are one integer). Boxed: 5 times smaller.
        .boxed(".onnx.AttributeProto.t")
        .boxed(".onnx.AttributeProto.g")
        .boxed(".onnx.AttributeProto.sparse_tensor")
        .boxed(".onnx.AttributeProto.tp")
        .compile_fds(descriptors)?;
    Ok(())
}
