"""The small-binding comparison flags a dim that evaluates to another size than onnxruntime's,
including one built from an engine fresh symbol, and nothing else."""
from conformance.small_bindings import mismatches


def test_a_dim_that_evaluates_to_another_size_is_flagged():
    shapes = {"pooled": [1, "max((h-3)/3+1, 1)"], "floor": [1, "(h-3)/3+1"], "rank": [1, 2]}
    real = {"pooled": [1, 1], "floor": [1, 1], "rank": [1, 2, 3]}
    bad, compared = mismatches(shapes, {"h": 2}, real)
    assert compared == 4
    assert sorted(b[0] for b in bad) == ["floor", "rank"]
    assert ("floor", 1, "(h-3)/3+1", 0, 1) in bad


def test_fresh_symbols_are_read_where_they_stand_alone():
    shapes = {"a": ["`Resize#0`"], "b": ["`Resize#0`/2"], "c": [None]}
    bad, compared = mismatches(shapes, {}, {"a": [7], "b": [3], "c": [5]})
    assert not bad and compared == 2
    bad, _ = mismatches(shapes, {}, {"a": [7], "b": [4], "c": [5]})
    assert [b[0] for b in bad] == ["b"]


def test_one_fresh_symbol_with_two_sizes_is_reported():
    shapes = {"a": ["`TopK#0`"], "b": ["`TopK#0`"]}
    bad, compared = mismatches(shapes, {}, {"a": [2], "b": [3]})
    assert compared == 2 and sorted(b[0] for b in bad) == ["a", "b"]
