"""A model over 2 GB, by path: memory-mapped, its weights never read (a sparse file, so the test
needs neither 2 GB of disk blocks nor of memory)."""

import resource
import sys

import pytest
from onnx import TensorProto, helper

import onnx_bcast_lint as obl

N = 700_000_000  # float32 elements: 2.8 GB of raw_data


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire, payload=b""):
    return varint(number << 3 | wire) + payload


def write_sparse_model(path):
    """``z = Add(x [3], W [N])``: W's raw_data is a hole of N*4 bytes in the file."""
    small = helper.make_model(
        helper.make_graph(
            [helper.make_node("Add", ["x", "W"], ["z"], name="add")],
            "big",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
            [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        ),
        opset_imports=[helper.make_opsetid("", 18)],
        ir_version=10,
    )
    graph = small.graph.SerializeToString()
    small.ClearField("graph")
    header = small.SerializeToString()
    raw = N * 4
    tensor_head = (field(1, 0, varint(N)) + field(2, 0, varint(TensorProto.FLOAT))
                   + field(8, 2, varint(1) + b"W") + field(9, 2, varint(raw)))
    tensor_len = len(tensor_head) + raw
    initializer_head = field(5, 2, varint(tensor_len)) + tensor_head
    graph_len = len(graph) + len(initializer_head) + raw
    with open(path, "wb") as f:
        f.write(header)
        f.write(field(7, 2, varint(graph_len)))
        f.write(graph)
        f.write(initializer_head)
        f.truncate(f.tell() + raw)  # the hole: no blocks written
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="sparse files and ru_maxrss differ")
def test_2gb_sparse_model_by_path(tmp_path):
    path = write_sparse_model(tmp_path / "big.onnx")
    assert path.stat().st_size > 2**31
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
    report = obl.lint(path)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert [f.code for f in report.findings] == ["E1"], [str(f) for f in report.findings]
    assert report.shape("W") == [N]
    assert report.findings[0].inputs == (obl.Input("x", [3]), obl.Input("W", [N]))
    assert grown_mb < 256, f"resident memory grew by {grown_mb:.0f} MB"
    assert path.stat().st_blocks * 512 < 1 << 20  # still sparse: nothing paged in and written
