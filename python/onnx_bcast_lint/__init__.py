"""Find broadcasting and shape bugs in ONNX models before they ship.

The engine is the Rust crate ``onnx-bcast-lint``: it infers every value's shape, with symbolic
dims such as ``batch`` or ``seq+1``, and checks every broadcasting node and operator shape
constraint. This package calls it in-process, with the GIL released.

>>> import onnx_bcast_lint
>>> report = onnx_bcast_lint.lint("tests/models/e1_static_mismatch.onnx")  # doctest: +SKIP
>>> [f.code for f in report.findings]  # doctest: +SKIP
['E1']
>>> onnx_bcast_lint.check(model)  # raises LintError when the model has errors  # doctest: +SKIP

Accepted models: an ``onnx.ModelProto`` (any object with ``SerializeToString``), ``bytes``
(or ``bytearray``/``memoryview``), a ``str`` or ``os.PathLike`` path (memory-mapped; external
data files are never opened), or a binary file object.
"""

from __future__ import annotations

import html as _html
import json
import os
import threading
from dataclasses import dataclass, field
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _native

__all__ = [
    "CODES",
    "DEFAULT_MAX_FINDINGS",
    "Declaration",
    "Declared",
    "Finding",
    "Input",
    "Limits",
    "LintError",
    "LoadError",
    "Node",
    "Provenance",
    "ProvenanceSource",
    "ProvenanceStep",
    "Report",
    "__version__",
    "check",
    "lint",
    "lint_many",
    "main",
]

__version__: str = _native.VERSION

#: Every diagnostic code the engine knows (``E1`` ``W1`` ``E2`` ``E3`` ``I1`` ``E4`` ``W4`` ``W2`` ``I2`` ``W5``;
#: ``E2`` is retired: declared-shape contradictions are ``W2`` warnings).
CODES: Tuple[str, ...] = tuple(_native.CODES)

#: Findings a report keeps by default (``max_findings``); the others are counted per code in
#: :attr:`Report.omitted`.
DEFAULT_MAX_FINDINGS: int = _native.DEFAULT_MAX_FINDINGS

# A code's severity is its letter: E error, W warning, I info.
_SEVERITY: Dict[str, str] = {
    code: {"E": "error", "W": "warning", "I": "info"}[code[0]] for code in CODES
}

Dim = Union[int, str, None]
Shape = Optional[List[Dim]]

_ACCEPTED = (
    "an onnx.ModelProto (or any object with SerializeToString), bytes, bytearray, memoryview, "
    "a str or os.PathLike path, or a binary file object"
)


class LoadError(ValueError):
    """The model cannot be linted at all: unreadable, empty, not an ONNX protobuf, or beyond a
    resource limit. The command exits with code 2 for these.

    Attributes: ``code`` (``load/io``, ``load/directory``, ``load/empty``, ``load/decode``,
    ``load/limit``, ``load/dims``, ``load/lfs-pointer``), ``message`` (the command's message),
    ``offset`` (the byte offset of the fault for ``load/decode`` and ``load/limit``, else
    ``None``) and ``path`` (the path or label of the model).

    >>> try:
    ...     onnx_bcast_lint.lint(b"garbage")
    ... except onnx_bcast_lint.LoadError as error:
    ...     print(error.code, error.offset)  # doctest: +SKIP
    load/decode 0
    """

    def __init__(self, code: str, message: str, offset: Optional[int], path: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.offset = offset
        self.path = path

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.message, self.offset, self.path))


class LintError(ValueError):
    """Raised by :func:`check` when the model has errors (or warnings, with
    ``deny_warnings=True``); ``report`` is the full :class:`Report`.

    >>> try:
    ...     onnx_bcast_lint.check("e1_static_mismatch.onnx")
    ... except onnx_bcast_lint.LintError as error:
    ...     print(error.report.errors[0].code)  # doctest: +SKIP
    E1
    """

    def __init__(
        self, report: "Report", denied: Sequence["Finding"], omitted: int = 0
    ) -> None:
        lines = [f"{report.path}: {_count(len(denied) + omitted, 'finding')} denied"]
        lines.extend(f"{f.code} {f.message}" for f in denied)
        if omitted:
            lines.append(f"... and {omitted:,} more over max_findings")
        super().__init__("\n".join(lines))
        self.report = report
        self.findings: List[Finding] = list(denied)


def _omitted_of(report: "Report", severities: Sequence[str]) -> int:
    """How many of ``report``'s omitted findings have one of ``severities``."""
    return sum(n for code, n in report.omitted.items() if _SEVERITY[code] in severities)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@dataclass(frozen=True)
class Limits:
    """Resource limits: exceeding one while loading is a ``load/limit`` :class:`LoadError`; an
    inferred rank above ``max_rank`` becomes unknown."""

    max_depth: int = _native.DEFAULT_LIMITS[0]
    max_rank: int = _native.DEFAULT_LIMITS[1]
    max_nodes: int = _native.DEFAULT_LIMITS[2]


class Node(NamedTuple):
    """The node a finding is about. ``graph`` is ``main``, ``main/<node>/then_branch`` or
    ``function/<domain>/<name>``; ``index`` its position in that graph; ``byte_range`` the
    ``(start, end)`` of its ``NodeProto`` in the serialized model (``None`` when unknown)."""

    graph: str
    index: int
    name: str
    op_type: str
    domain: str
    byte_range: Optional[Tuple[int, int]]


class ProvenanceSource(NamedTuple):
    """Where a traced dim starts: ``kind`` (``graph_input``, ``initializer`` or ``constant``),
    the ``graph`` and value ``name``, and its ``axis`` and ``dim`` there."""

    kind: str
    graph: str
    name: str
    axis: int
    dim: Dim


class ProvenanceStep(NamedTuple):
    """A node that changes a traced dim on its way: the node (``graph``, ``index``, ``name``,
    ``op_type``), the ``attributes`` and constant inputs that decide the change (``{"strides":
    "[2, 2]"}``), and the ``output``, ``axis`` and ``dim`` it makes."""

    graph: str
    index: int
    name: str
    op_type: str
    attributes: Dict[str, str]
    output: str
    axis: int
    dim: Dim


class Provenance(NamedTuple):
    """Where one offending dim of an input comes from (the JSON output's ``provenance``
    entries, field for field): the input's ``axis`` and ``dim``, its ``source``, the ``steps``
    (only the nodes that change it) and ``nodes``, the length of the whole chain."""

    axis: int
    dim: Dim
    source: ProvenanceSource
    steps: Tuple[ProvenanceStep, ...]
    nodes: int


class Declaration(NamedTuple):
    """A declared size that inference took because it could not compute the dim: the
    declared value (``graph`` and ``name``, a ``value_info`` or graph output) and its ``axis``
    and ``dim`` there."""

    graph: str
    name: str
    axis: int
    dim: Dim


class Declared(NamedTuple):
    """A dim of a finding's input that is, or is computed from, a declared size (the JSON
    output's ``declared`` entries, field for field): the input's ``axis`` and ``dim``, and the
    ``declaration`` it rests on. An assumption, not a fact: a declaration can be wrong (W2)."""

    axis: int
    dim: Dim
    declaration: Declaration


class _NameShape(NamedTuple):
    name: str
    shape: Shape


class Input(_NameShape):
    """An input involved in a finding. It is the pair ``(name, shape)`` (``name, shape =
    input``, ``dict(finding.inputs)``; equality compares the pair), with two more attributes,
    as the JSON output's ``inputs`` have them: ``value``, the elements of a small 1-D input
    whose elements are known (an Expand target such as ``"[2, 1, 4]"``), else ``None``; and
    ``provenance``, a tuple of :class:`Provenance`, one per offending dim traced back to a graph
    input, initializer or ``Constant`` (empty when none was); and ``declared``, a tuple of
    :class:`Declared`, one per dim that rests on a declared size (empty when none does)."""

    # Not in the pair, so that code unpacking `(name, shape)` keeps working; kept in the
    # instance's dict (a tuple subclass cannot have slots). `_make` gives these defaults.
    _value: Optional[str] = None
    _provenance: Tuple[Provenance, ...] = ()
    _declared: Tuple[Declared, ...] = ()

    def __new__(
        cls,
        name: str,
        shape: Shape,
        value: Optional[str] = None,
        provenance: Iterable[Provenance] = (),
        declared: Iterable[Declared] = (),
    ) -> "Input":
        self = super().__new__(cls, name, shape)
        self.__dict__["_value"] = value
        self.__dict__["_provenance"] = tuple(provenance)
        self.__dict__["_declared"] = tuple(declared)
        return self

    @property
    def value(self) -> Optional[str]:
        """The input's elements when small, 1-D and known (``"[2, 1, 4]"``), else ``None``."""
        return self._value

    @property
    def provenance(self) -> Tuple[Provenance, ...]:
        """Where each of the input's offending dims comes from (empty when none was traced)."""
        return self._provenance

    @property
    def declared(self) -> Tuple[Declared, ...]:
        """The declared sizes the input's dims rest on (empty when none does)."""
        return self._declared

    def _replace(self, **changes: Any) -> "Input":
        fields = {"name": self.name, "shape": self.shape, "value": self.value,
                  "provenance": self.provenance, "declared": self.declared}
        fields.update(changes)
        return type(self)(**fields)

    def __getnewargs__(self) -> Tuple[Any, ...]:
        return (self.name, self.shape, self.value, self.provenance, self.declared)

    def __repr__(self) -> str:
        # `declared` only when there is one, so that the common repr stays short.
        declared = f", declared={self.declared!r}" if self.declared else ""
        return (f"Input(name={self.name!r}, shape={self.shape!r}, value={self.value!r}, "
                f"provenance={self.provenance!r}{declared})")


@dataclass(frozen=True)
class Finding:
    """One diagnostic: ``code`` (``E1`` ...), ``severity`` (``error``, ``warning``, ``info``),
    ``message`` (one sentence naming op and node), ``help`` (what would make it legal, or
    ``None``), ``node`` (or ``None`` for model-level findings), ``inputs`` (each an
    :class:`Input`, with its provenance), ``facts``: what the message states, as data (a dict
    tagged by ``"kind"``, as the JSON output's ``facts``, e.g. ``{"kind":
    "conditional_broadcast", "condition": "seq ≤ 64", "counterexample": {"seq": 65}, ...}``;
    the message is written from it), and ``fingerprint``: its stable identity across runs
    (``"E1:258acc58c22b43fb"``, the JSON's ``fingerprint``), what the command's ``ignore``
    setting and baselines take (empty for a finding made by hand). ``facts`` and
    ``fingerprint`` are left out of equality (both follow from the rest)."""

    code: str
    severity: str
    message: str
    help: Optional[str]
    node: Optional[Node]
    inputs: Tuple[Input, ...]
    facts: Dict[str, Any] = field(default_factory=dict, compare=False)
    fingerprint: str = field(default="", compare=False)

    def __str__(self) -> str:
        return f"{self.code} {self.message}"

    @property
    def provenance(self) -> Dict[str, Tuple[Provenance, ...]]:
        """Where the offending dims come from, per input: ``{input name: (Provenance, ...)}``
        for the inputs that have a traced chain (the JSON output's ``provenance`` lists, keyed
        by input; each also on its :class:`Input`)."""
        return {i.name: i.provenance for i in self.inputs if i.provenance}

    def _repr_html_(self) -> str:
        """The finding's section of the HTML report with the drawing of its subgraph, as
        notebooks show it. A finding made by hand has no engine report to draw from: its code,
        message and help alone."""
        origin = self.__dict__.get("_origin")
        if origin is not None:
            native, index = origin
            fragment = native.finding_html(index)
            if fragment is not None:
                return str(fragment)
        help_line = "" if self.help is None else f"<p><b>help:</b> {_html.escape(self.help)}</p>"
        return (f'<div class="obl"><p><b>{_html.escape(self.code)}</b> '
                f"{_html.escape(self.message)}</p>{help_line}</div>")

    def __getstate__(self) -> Dict[str, Any]:
        # The engine's report stays behind: a copy or an unpickled finding draws without it.
        return {k: v for k, v in self.__dict__.items() if k != "_origin"}


class Report:
    """The result of linting one model.

    >>> report = onnx_bcast_lint.lint("model.onnx", dims={"batch": 8})  # doctest: +SKIP
    >>> report.ok, [str(f) for f in report.findings]  # doctest: +SKIP
    (False, ['E1 Add node `add`: inputs cannot broadcast: axis 1 is 3 vs 4'])
    >>> report.shape("z")  # doctest: +SKIP
    [2, None]
    >>> print(report)  # the command's human report  # doctest: +SKIP
    """

    __slots__ = ("_native", "_findings", "_shapes", "_lock")

    def __init__(self, native: Any) -> None:
        self._native = native
        self._findings: Optional[List[Finding]] = None
        self._shapes: Optional[Dict[str, Shape]] = None
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        """The path as given, or a label (``<bytes>``, ``<ModelProto>``, a file object's name)."""
        return str(self._native.path)

    @property
    def findings(self) -> List[Finding]:
        """The findings in graph order (graph path, node index, code): the first
        ``max_findings`` of them; :attr:`omitted` counts the others."""
        with self._lock:
            if self._findings is None:
                self._findings = [
                    _finding(raw, (self._native, i))
                    for i, raw in enumerate(self._native.findings())
                ]
            return list(self._findings)

    @property
    def errors(self) -> List[Finding]:
        """Findings of severity ``error``."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> List[Finding]:
        """Findings of severity ``warning``."""
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def infos(self) -> List[Finding]:
        """Findings of severity ``info`` (``I1``)."""
        return [f for f in self.findings if f.severity == "info"]

    @property
    def omitted(self) -> Dict[str, int]:
        """Findings over ``max_findings``, not in :attr:`findings`: how many of each code (empty
        when the cap was not reached). They count for :attr:`ok` and :func:`check`."""
        return dict(self._native.omitted())

    @property
    def ok(self) -> bool:
        """No errors (warnings and infos allowed), the omitted ones included: what makes the
        command exit 0."""
        return not self.errors and not _omitted_of(self, ("error",))

    @property
    def shapes(self) -> Dict[str, Shape]:
        """Every main-graph value's inferred shape: a list of dims (``int`` static, ``str``
        symbolic such as ``"batch"`` or ``"seq+1"``, ``None`` unknown), or ``None`` for an
        unknown rank."""
        with self._lock:
            if self._shapes is None:
                self._shapes = dict(self._native.shapes())
            return {name: _copy(shape) for name, shape in self._shapes.items()}

    def shape(self, name: str) -> Shape:
        """The inferred shape of the main-graph value ``name`` (``None``: unknown rank), as
        ``report.shapes[name]`` without copying every shape.

        Raises ``KeyError(name)``, as that lookup does, when the main graph has no value of that
        name (a subgraph's value, a misspelling): ``name in report.shapes`` tests first."""
        if not isinstance(name, str):
            raise TypeError(f"shape() expects a value name (str), got {type(name).__name__}")
        found, shape = self._native.shape(name)
        if not found:
            raise KeyError(name)
        return shape

    @property
    def stats(self) -> Dict[str, int]:
        """Counts of the main graph (``graphs``, ``nodes``, ``initializers``, ``values`` ...),
        as in the JSON ``stats``."""
        return dict(self._native.stats())

    def to_json(self, *, shapes: bool = False) -> str:
        """The JSON v1 document, byte for byte what ``onnx-bcast-lint --format json`` prints for
        this file (``--shapes`` too with ``shapes=True``), final newline included."""
        return str(self._native.to_json(bool(shapes)))

    def to_sarif(self) -> str:
        """The SARIF 2.1.0 document ``--format sarif`` prints for this file."""
        return str(self._native.to_sarif())

    def to_html(self, path: Optional[Union[str, "os.PathLike[str]"]] = None) -> str:
        """The self-contained HTML page ``--format html`` prints for this file; written to
        ``path`` (UTF-8) when one is given, and returned either way."""
        page = str(self._native.html(True))
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(page)
        return page

    def _repr_html_(self) -> str:
        """The HTML report's markup without ``<html>``/``<head>`` (summary, coverage, each
        finding with its drawing): what a notebook shows for a report as a cell's value."""
        return str(self._native.html(False))

    def render(
        self, *, color: bool = False, width: int = 100, quiet: bool = False, shapes: bool = False
    ) -> str:
        """The command's human report: one block per finding and the summary line."""
        if width < 1:
            raise ValueError("width must be positive")
        return str(self._native.human(bool(color), int(width), bool(quiet), bool(shapes)))

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return (
            f"<Report {self.path!r}: {_count(len(self.errors), 'error')}, "
            f"{_count(len(self.warnings), 'warning')}>"
        )


def _copy(shape: Shape) -> Shape:
    return None if shape is None else list(shape)


def _finding(raw: Mapping[str, Any], origin: Optional[Tuple[Any, int]] = None) -> Finding:
    """A :class:`Finding` from the engine's dict of named fields (``_native``'s ``finding_py``);
    ``origin``, the engine's report and the finding's index there, is what its HTML is drawn
    from."""
    node = raw["node"]
    if node is not None:
        start, end = node["start"], node["end"]
        node = Node(
            graph=node["graph"],
            index=node["index"],
            name=node["name"],
            op_type=node["op_type"],
            domain=node["domain"],
            byte_range=(start, end) if end > start else None,
        )
    finding = Finding(
        code=raw["code"],
        severity=raw["severity"],
        message=raw["message"],
        help=raw["help"],
        node=node,
        inputs=tuple(
            Input(
                name=i["name"],
                shape=i["shape"],
                value=i["value"],
                provenance=(_provenance(p) for p in i["provenance"]),
                declared=(_declared(d) for d in i["declared"]),
            )
            for i in raw["inputs"]
        ),
        facts=json.loads(raw["facts"]),
        fingerprint=raw["fingerprint"],
    )
    if origin is not None:
        # Not a field: equality, repr and the constructor stay as they were.
        object.__setattr__(finding, "_origin", origin)
    return finding


def _provenance(raw: Mapping[str, Any]) -> Provenance:
    return Provenance(
        axis=raw["axis"],
        dim=raw["dim"],
        source=ProvenanceSource(**raw["source"]),
        steps=tuple(
            ProvenanceStep(**{**step, "attributes": dict(step["attributes"])})
            for step in raw["steps"]
        ),
        nodes=raw["nodes"],
    )


def _declared(raw: Mapping[str, Any]) -> Declared:
    return Declared(axis=raw["axis"], dim=raw["dim"],
                    declaration=Declaration(**raw["declaration"]))


def _source(model: Any, caller: str) -> Tuple[bool, Any, str]:
    """``(is_path, path-or-bytes, label)`` for any accepted model."""
    if isinstance(model, bytes):
        return False, model, "<bytes>"
    if isinstance(model, (bytearray, memoryview)):
        return False, bytes(model), "<bytes>"
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        label = os.fsdecode(path)
        return True, label if isinstance(path, str) else path, label
    if isinstance(model, type):
        raise TypeError(f"{caller}() expects a model, got the class {model.__name__}: pass an "
                        "instance")
    serialize = getattr(model, "SerializeToString", None)
    if callable(serialize):
        _require_model_proto(model, caller)
        data = serialize()
        if not isinstance(data, bytes):
            raise TypeError(f"{caller}(): SerializeToString() returned {type(data).__name__}")
        return False, data, f"<{type(model).__name__}>"
    read = getattr(model, "read", None)
    if callable(read):
        data = read()
        if isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        if not isinstance(data, bytes):
            raise TypeError(
                f"{caller}(): the file object gave {type(data).__name__}: open it in binary "
                "mode ('rb')"
            )
        name = getattr(model, "name", None)
        return False, data, name if isinstance(name, str) else "<file>"
    raise TypeError(f"{caller}() expects {_ACCEPTED}; got {type(model).__name__}")


def _require_model_proto(model: Any, caller: str) -> None:
    """A TypeError for a protobuf message that is not a ModelProto (its bytes would fail to
    decode with a message about the wire format); objects that are not protobuf messages are
    taken at their word."""
    descriptor = getattr(model, "DESCRIPTOR", None)
    full_name = getattr(descriptor, "full_name", None)
    if not isinstance(full_name, str) or getattr(descriptor, "name", None) == "ModelProto":
        return
    message = f"{caller}() expects an onnx.ModelProto, got {full_name}"
    if descriptor.name == "GraphProto":
        message += (": wrap it in a model first, onnx.helper.make_model(graph, "
                    "opset_imports=[onnx.helper.make_opsetid('', OPSET)])")
    elif descriptor.name == "FunctionProto":
        message += ": lint a model that calls or contains the function"
    else:
        message += f" (the model is {_ACCEPTED})"
    raise TypeError(message)


def _raise_unknown_dims(caller: str, sentences: Sequence[str]) -> None:
    """The ``ValueError`` for bound dims that no model read declares, one line each; the same
    sentences as the command's ``--dim`` error."""
    if sentences:
        raise ValueError("\n".join(f"{caller}(): dims: {s}" for s in sentences))


def _options(
    caller: str,
    dims: Optional[Mapping[str, int]],
    allow: Iterable[str],
    limits: Any,
    initializers_as_constants: bool,
    max_findings: int,
) -> Tuple[List[Tuple[str, int]], List[str], Optional[Tuple[int, int, int]], bool, int]:
    if isinstance(max_findings, bool) or not isinstance(max_findings, int):
        raise TypeError(f"{caller}(): max_findings must be an int (0 keeps every finding), got "
                        f"{type(max_findings).__name__}")
    if max_findings < 0:
        raise ValueError(f"{caller}(): max_findings cannot be negative ({max_findings}); 0 keeps "
                         "every finding")
    if not isinstance(initializers_as_constants, bool):
        raise TypeError(f"{caller}(): initializers_as_constants must be a bool, got "
                        f"{type(initializers_as_constants).__name__}")
    bound: List[Tuple[str, int]] = []
    if dims is not None:
        if not isinstance(dims, Mapping):
            raise TypeError(f"{caller}(): dims must be a mapping of dim name to int, such as "
                            "{'batch': 8}")
        for name, value in dims.items():
            if not isinstance(name, str):
                raise TypeError(f"{caller}(): dim names must be str, got {type(name).__name__}")
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{caller}(): dim {name!r} must be an int, got "
                                f"{type(value).__name__}")
            if value < 0:
                raise ValueError(f"{caller}(): a dim cannot be negative ({name}={value})")
            if value >= 2**63:
                raise ValueError(f"{caller}(): dim {name}={value} does not fit in 64 bits")
            bound.append((name, value))
    if isinstance(allow, str):
        allow = (allow,)
    if not isinstance(allow, Iterable):
        raise TypeError(f"{caller}(): allow takes an iterable of codes such as ['I1'], got "
                        f"{type(allow).__name__}")
    codes: List[str] = []
    for code in allow:
        if not isinstance(code, str):
            raise TypeError(f"{caller}(): allow takes codes as str, got {type(code).__name__}")
        if code.upper() not in CODES:
            raise ValueError(f"{caller}(): unknown code {code!r} ({', '.join(CODES)})")
        codes.append(code.upper())
    if limits is None:
        triple = None
    else:
        if isinstance(limits, Mapping):
            limits = Limits(**limits)
        if not isinstance(limits, Limits):
            raise TypeError(f"{caller}(): limits must be a Limits or a mapping of its fields")
        triple = (limits.max_depth, limits.max_rank, limits.max_nodes)
        for value in triple:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{caller}(): limits must be non-negative ints: {limits}")
    return bound, codes, triple, initializers_as_constants, max_findings


def _report(native: Any) -> Report:
    error = native.error()
    if error is not None:
        code, message, offset = error
        raise LoadError(code, message, offset, str(native.path))
    return Report(native)


def lint(
    model: Any,
    *,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: Optional[Union[Limits, Mapping[str, int]]] = None,
    initializers_as_constants: bool = False,
    max_findings: int = DEFAULT_MAX_FINDINGS,
) -> Report:
    """Lint one model and return its :class:`Report`.

    ``model``: an ``onnx.ModelProto`` (serialized once), ``bytes``, a path (memory-mapped; a
    2 GB+ model is fine and external data files are never opened) or a binary file object.
    ``dims`` binds symbolic dims for one deployment (``{"batch": 8}``): conditions on them
    become definite. ``allow`` lists codes not to report (``("I1",)``). ``limits``: see
    :class:`Limits`. ``initializers_as_constants=True`` is ``--initializers-as-constants``:
    initializers that are also graph inputs (from IR 4 on, defaults a caller may override)
    keep their stored values, and findings that depend on them say so in their help.
    ``max_findings`` is ``--max-findings``: the report keeps the first findings in graph order
    and counts the others per code (:attr:`Report.omitted`); ``0`` keeps every one.

    Raises :class:`LoadError` when the model cannot be read, ``TypeError`` for a model of
    another type (a ``GraphProto`` included), ``ValueError`` for a ``dims`` name that no input
    of the model declares (``{"sequence": 5}`` for a model declaring ``seq``): the message names
    the closest declared names, as the command's ``--dim`` does.

    >>> import onnx, onnx_bcast_lint
    >>> report = onnx_bcast_lint.lint(onnx.load("model.onnx"), dims={"batch": 1})  # doctest: +SKIP
    >>> for finding in report.findings:  # doctest: +SKIP
    ...     print(finding.code, finding.node.name, finding.message)
    """
    options = _options("lint", dims, allow, limits, initializers_as_constants, max_findings)
    is_path, data, label = _source(model, "lint")
    native = _native.lint(is_path, data, label, options)
    _raise_unknown_dims("lint", native.unknown_dims())
    return _report(native)


def check(
    model: Any,
    *,
    deny_warnings: bool = False,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: Optional[Union[Limits, Mapping[str, int]]] = None,
    initializers_as_constants: bool = False,
    max_findings: int = DEFAULT_MAX_FINDINGS,
) -> Report:
    """Like ``onnx.checker.check_model``: lint ``model`` and raise :class:`LintError` (a
    ``ValueError`` carrying the report) when it has errors, or warnings too with
    ``deny_warnings=True``. Returns the report otherwise. Raises as :func:`lint` does before
    that (``ValueError`` for a ``dims`` name the model does not declare).

    >>> onnx.save(model, "model.onnx")  # doctest: +SKIP
    >>> onnx_bcast_lint.check("model.onnx", dims={"batch": 8}, deny_warnings=True)  # doctest: +SKIP
    """
    report = lint(
        model,
        dims=dims,
        allow=allow,
        limits=limits,
        initializers_as_constants=initializers_as_constants,
        max_findings=max_findings,
    )
    _raise_denied(report, deny_warnings)
    return report


def _raise_denied(report: Report, deny_warnings: bool) -> None:
    denied = [
        f
        for f in report.findings
        if f.severity == "error" or (deny_warnings and f.severity == "warning")
    ]
    # Findings over the cap fail the check too: only their count is known.
    omitted = _omitted_of(report, ("error", "warning") if deny_warnings else ("error",))
    if denied or omitted:
        raise LintError(report, denied, omitted)


def lint_many(
    models: Iterable[Any],
    *,
    jobs: Optional[int] = None,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: Optional[Union[Limits, Mapping[str, int]]] = None,
    return_exceptions: bool = False,
    initializers_as_constants: bool = False,
    max_findings: int = DEFAULT_MAX_FINDINGS,
) -> List[Report]:
    """Lint several models in parallel on the engine's threads (``jobs`` of them, default all
    cores) and return their reports in the order given.

    A model that cannot be read raises its :class:`LoadError` (the first in order, once all
    are done); with ``return_exceptions=True`` the ``LoadError`` takes its place in the list.
    A ``dims`` name is checked over the batch, as the command checks ``--dim``: one model
    declaring it is enough (a zoo's models need not share every symbol); a name that no model
    read declares raises ``ValueError`` naming the closest declared ones, whatever
    ``return_exceptions`` says.

    >>> reports = onnx_bcast_lint.lint_many(pathlib.Path("zoo").glob("*.onnx"))  # doctest: +SKIP
    >>> [r.path for r in reports if not r.ok]  # doctest: +SKIP
    """
    if isinstance(models, (str, bytes, os.PathLike)) or not isinstance(models, Iterable):
        raise TypeError(
            "lint_many() expects an iterable of models, each " + _ACCEPTED
        )
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError("lint_many(): jobs must be a positive int or None")
    options = _options(
        "lint_many", dims, allow, limits, initializers_as_constants, max_findings
    )
    sources = [_source(model, "lint_many") for model in models]
    results: List[Any] = []
    first_error: Optional[LoadError] = None
    natives, unknown_dims = _native.lint_many(sources, jobs, options)
    _raise_unknown_dims("lint_many", unknown_dims)
    for native in natives:
        try:
            results.append(_report(native))
        except LoadError as error:
            if not return_exceptions:
                first_error = first_error or error
            results.append(error)
    if first_error is not None:
        raise first_error
    return results


def main(argv: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None) -> int:
    """Run the ``onnx-bcast-lint`` command in this process with ``argv`` (default
    ``sys.argv[1:]``); it prints to standard output and returns the exit code (``0`` no
    errors, ``1`` errors found, ``2`` a usage error or an unreadable model).

    >>> onnx_bcast_lint.main(["--format", "json", "model.onnx"])  # doctest: +SKIP
    """
    import sys

    args = sys.argv[1:] if argv is None else [os.fspath(a) for a in argv]
    # The command writes to the process's standard output itself: what Python buffered first.
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_native.main(["onnx-bcast-lint", *args]))
