"""Scoring dims named by the engine's fresh symbols (`Resize#0`, `NonZero#3`): the symbol's
run-time value is read where it stands alone, then every dim built from it is checked."""
from conformance.score import score


def _truth(*runs):
    return {"bindings": [{"env": {"h": h}, "shapes": shapes} for h, shapes in runs]}


PRODUCERS = {"a": (0, "Resize", ""), "b": (1, "Conv", ""), "c": (2, "Resize", "")}


def test_dims_built_from_a_fresh_symbol_are_checked():
    truth = _truth((10, {"a": [1, 7], "b": [1, 4]}), (16, {"a": [1, 11], "b": [1, 6]}))
    shapes = {"a": [1, "`Resize#0`"], "b": [1, "(`Resize#0`+1)/2"]}
    counts, _, wrong = score(truth, PRODUCERS, shapes)
    assert counts["known"] == 4 and counts["correct"] == 4
    assert counts["unevaluable"] == 0 and not wrong


def test_a_wrong_expression_of_a_fresh_symbol_is_wrong():
    truth = _truth((10, {"a": [1, 7], "b": [1, 4]}))
    shapes = {"a": [1, "`Resize#0`"], "b": [1, "`Resize#0`/2"]}
    counts, _, wrong = score(truth, PRODUCERS, shapes)
    assert counts["wrong"] == 1
    assert [w["value"] for w in wrong] == ["b"]


def test_one_fresh_symbol_with_two_sizes_is_wrong_where_it_stands_alone():
    truth = _truth((10, {"a": [1, 7], "c": [1, 8]}))
    shapes = {"a": [1, "`Resize#0`"], "c": [1, "`Resize#0`"]}
    counts, _, wrong = score(truth, PRODUCERS, shapes)
    assert counts["wrong"] == 2
    assert all(w["why"] == "fresh symbol with two sizes" for w in wrong)


def test_an_unbound_model_symbol_stays_unevaluable():
    truth = _truth((10, {"a": [1, 7]}))
    counts, _, _ = score(truth, PRODUCERS, {"a": [1, "w"]})
    assert counts["unevaluable"] == 1 and counts["wrong"] == 0
