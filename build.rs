//! Compiles `proto/onnx.proto` into Rust with protox (pure Rust, no `protoc`) and prost-build.
//! `bytes` fields become `bytes::Bytes` so that decoding from a `Bytes` buffer slices tensor payloads
//! out of the input instead of copying them.

use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let descriptors = protox::compile(["proto/onnx.proto"], ["proto"])?;
    // AttributeProto holds a tensor, a graph, a sparse tensor and a type inline: 1,672 bytes per
    // attribute, most of a large model's memory. Boxed, they cost a pointer when absent.
    prost_build::Config::new()
        .bytes(["."])
        .boxed(".onnx.AttributeProto.t")
        .boxed(".onnx.AttributeProto.g")
        .boxed(".onnx.AttributeProto.sparse_tensor")
        .boxed(".onnx.AttributeProto.tp")
        .compile_fds(descriptors)?;
    Ok(())
}
