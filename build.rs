//! Compiles `proto/onnx.proto` into Rust with protox (pure Rust, no `protoc`) and prost-build.
//! `bytes` fields become `bytes::Bytes` so that decoding from a `Bytes` buffer slices tensor payloads
//! out of the input instead of copying them.

use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let descriptors = protox::compile(["proto/onnx.proto"], ["proto"])?;
    prost_build::Config::new()
        .bytes(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
