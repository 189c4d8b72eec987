import pytest

from conformance.symexpr import ExprError, Unbound, evaluate, parse, names


@pytest.mark.parametrize(
    "text,env,want",
    [
        ("7", {}, 7),
        (7, {}, 7),
        ("batch", {"batch": 3}, 3),
        ("`batch size`", {"batch size": 4}, 4),
        ("`p2o.DynamicDimension.0` * 2", {"p2o.DynamicDimension.0": 5}, 10),
        ("a + b * c", {"a": 1, "b": 2, "c": 3}, 7),
        ("(a + b) * c", {"a": 1, "b": 2, "c": 3}, 9),
        ("a - b - c", {"a": 10, "b": 2, "c": 3}, 5),
        ("a / 2", {"a": 7}, 3),
        ("-7 / 2", {}, -4),  # floor division
        ("-7 % 3", {}, 2),  # python modulo
        ("a % 3 * 2", {"a": 7}, 2),
        ("-a", {"a": 4}, -4),
        ("- -a", {"a": 4}, 4),
        ("min(a, 3)", {"a": 5}, 3),
        ("max(a, b + 1)", {"a": 2, "b": 4}, 5),
        ("(s - 1) / 2 + 1", {"s": 9}, 5),
        ("max(min(a, b), 1)", {"a": 0, "b": 3}, 1),
        ("  a*b ", {"a": 2, "b": 3}, 6),
        ("min", {"min": 2}, 2),
    ],
)
def test_evaluate(text, env, want):
    assert evaluate(text, env) == want


def test_unbound():
    with pytest.raises(Unbound) as e:
        evaluate("a + unk_0", {"a": 1})
    assert e.value.names == {"unk_0"}


@pytest.mark.parametrize("bad", ["", "a +", "(a", "a b", "1 ** 2", "a.b", "__import__('os')", "min(a)", "`x"])
def test_bad(bad):
    with pytest.raises(ExprError):
        evaluate(bad, {"a": 1, "b": 2})


def test_names():
    assert names(parse("min(`a b`, c) + 2 * d")) == {"a b", "c", "d"}


def test_div_zero():
    with pytest.raises(ZeroDivisionError):
        evaluate("a / b", {"a": 1, "b": 0})
