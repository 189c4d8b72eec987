"""The first-loss report: a node counts when its output has an unknown dim and every input's dims are known."""
from conformance.first_loss import add_family, brief, first_losses

TRUTH = {"bindings": [{"env": {"n": 2}, "shapes": {"a": [2, 3], "b": [2, 6], "c": [2, 6], "d": [2, 6, 1]}}]}
# x -> Relu -> a -> Tile -> b -> Add -> c -> Unsqueeze -> d
PRODUCERS = {"a": (0, "Relu", ""), "b": (1, "Tile", ""), "c": (2, "Add", ""), "d": (3, "FusedConv", "com.microsoft")}
INPUTS = {0: ["x"], 1: ["a", "reps"], 2: ["b", "b"], 3: ["c", ""]}


def test_first_loss_is_the_node_whose_inputs_are_known():
    shapes = {"x": ["n", 3], "reps": [2], "a": ["n", 3], "b": ["n", None], "c": ["n", None], "d": None}
    # Tile loses one dim from known inputs; Add and FusedConv only inherit the loss.
    assert first_losses(TRUTH, PRODUCERS, INPUTS, shapes) == [(1, "Tile", 1)]


def test_an_unknown_rank_counts_every_dim_and_domains_are_named():
    shapes = {"x": ["n", 3], "reps": [2], "a": ["n", 3], "b": ["n", 6], "c": ["n", 6], "d": None}
    assert first_losses(TRUTH, PRODUCERS, INPUTS, shapes) == [(3, "com.microsoft:FusedConv", 3)]


def test_an_input_without_a_shape_is_not_known_and_a_wrong_rank_is_not_a_loss():
    shapes = {"x": ["n", 3], "a": ["n", 3], "b": ["n", None], "c": ["n", 6, 1], "d": ["n", 6, 1]}
    assert first_losses(TRUTH, PRODUCERS, INPUTS, shapes) == []


def test_family_counts_and_brief():
    acc = add_family({}, [(1, "Tile", 1), (4, "Tile", 2), (5, "Pad", 4)])
    assert acc == {"Tile": [2, 3], "Pad": [1, 4]}
    assert brief(acc) == "Pad ×1 (4), Tile ×2 (3)"
    assert brief({}) == "-"
