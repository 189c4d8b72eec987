"""Type stub of onnx_bcast_lint (the docstrings are in __init__.py)."""

import os
from typing import (
    IO,
    Any,
    Dict,
    Iterable,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Union,
    overload,
)

__version__: str
CODES: Tuple[str, ...]
DEFAULT_MAX_FINDINGS: int

Dim = Union[int, str, None]
"""A dim: ``int`` static, ``str`` symbolic (``"batch"``, ``"seq+1"``), ``None`` unknown."""
Shape = Optional[List[Dim]]
"""A shape: a list of dims, or ``None`` for an unknown rank."""
Code = Literal["E1", "W1", "E2", "E3", "E4", "W4", "W2", "W5", "I1", "I2"]
Severity = Literal["error", "warning", "info"]

class _SerializableModel(Protocol):
    def SerializeToString(self) -> bytes: ...

Model = Union[
    _SerializableModel,
    bytes,
    bytearray,
    memoryview,
    str,
    "os.PathLike[str]",
    "os.PathLike[bytes]",
    IO[bytes],
]
"""An ``onnx.ModelProto`` (any object with ``SerializeToString``), bytes, a path or a binary
file object."""

class LoadError(ValueError):
    code: str
    message: str
    offset: Optional[int]
    path: str
    def __init__(self, code: str, message: str, offset: Optional[int], path: str) -> None: ...

class LintError(ValueError):
    report: Report
    findings: List[Finding]
    def __init__(
        self, report: Report, denied: Sequence[Finding], omitted: int = 0
    ) -> None: ...

class Limits:
    max_depth: int
    max_rank: int
    max_nodes: int
    def __init__(
        self, max_depth: int = ..., max_rank: int = ..., max_nodes: int = ...
    ) -> None: ...

class Node(NamedTuple):
    graph: str
    index: int
    name: str
    op_type: str
    domain: str
    byte_range: Optional[Tuple[int, int]]

class ProvenanceSource(NamedTuple):
    kind: Literal["graph_input", "initializer", "constant"]
    graph: str
    name: str
    axis: int
    dim: Dim

class ProvenanceStep(NamedTuple):
    graph: str
    index: int
    name: str
    op_type: str
    attributes: Dict[str, str]
    output: str
    axis: int
    dim: Dim

class Provenance(NamedTuple):
    axis: int
    dim: Dim
    source: ProvenanceSource
    steps: Tuple[ProvenanceStep, ...]
    nodes: int

class Declaration(NamedTuple):
    graph: str
    name: str
    axis: int
    dim: Dim

class Declared(NamedTuple):
    axis: int
    dim: Dim
    declaration: Declaration

class Input(Tuple[str, Shape]):
    """The pair ``(name, shape)``, with ``value``, ``provenance`` and ``declared`` besides
    (equality compares the pair)."""
    def __new__(
        cls,
        name: str,
        shape: Shape,
        value: Optional[str] = None,
        provenance: Iterable[Provenance] = (),
        declared: Iterable[Declared] = (),
    ) -> Input: ...
    @property
    def name(self) -> str: ...
    @property
    def shape(self) -> Shape: ...
    @property
    def value(self) -> Optional[str]: ...
    @property
    def provenance(self) -> Tuple[Provenance, ...]: ...
    @property
    def declared(self) -> Tuple[Declared, ...]: ...
    def _replace(
        self,
        *,
        name: str = ...,
        shape: Shape = ...,
        value: Optional[str] = ...,
        provenance: Iterable[Provenance] = ...,
        declared: Iterable[Declared] = ...,
    ) -> Input: ...

class Finding:
    code: str
    severity: str
    message: str
    help: Optional[str]
    node: Optional[Node]
    inputs: Tuple[Input, ...]
    facts: Dict[str, Any]
    fingerprint: str
    def __init__(
        self,
        code: str,
        severity: str,
        message: str,
        help: Optional[str],
        node: Optional[Node],
        inputs: Tuple[Input, ...],
        facts: Dict[str, Any] = ...,
        fingerprint: str = ...,
    ) -> None: ...
    @property
    def provenance(self) -> Dict[str, Tuple[Provenance, ...]]: ...
    def _repr_html_(self) -> str: ...

class Report:
    @property
    def path(self) -> str: ...
    @property
    def findings(self) -> List[Finding]: ...
    @property
    def errors(self) -> List[Finding]: ...
    @property
    def warnings(self) -> List[Finding]: ...
    @property
    def infos(self) -> List[Finding]: ...
    @property
    def omitted(self) -> Dict[str, int]: ...
    @property
    def ok(self) -> bool: ...
    @property
    def shapes(self) -> Dict[str, Shape]: ...
    def shape(self, name: str) -> Shape:
        """Raises ``KeyError(name)`` when the main graph has no value of that name."""
    @property
    def stats(self) -> Dict[str, int]: ...
    def to_json(self, *, shapes: bool = False) -> str: ...
    def to_sarif(self) -> str: ...
    def to_html(self, path: Optional[Union[str, os.PathLike[str]]] = None) -> str: ...
    def _repr_html_(self) -> str: ...
    def render(
        self, *, color: bool = False, width: int = 100, quiet: bool = False, shapes: bool = False
    ) -> str: ...

_Limits = Union[Limits, Mapping[str, int], None]

def lint(
    model: Model,
    *,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: _Limits = None,
    initializers_as_constants: bool = False,
    max_findings: int = ...,
) -> Report: ...
def check(
    model: Model,
    *,
    deny_warnings: bool = False,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: _Limits = None,
    initializers_as_constants: bool = False,
    max_findings: int = ...,
) -> Report: ...
@overload
def lint_many(
    models: Iterable[Model],
    *,
    jobs: Optional[int] = None,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: _Limits = None,
    return_exceptions: Literal[False] = False,
    initializers_as_constants: bool = False,
    max_findings: int = ...,
) -> List[Report]: ...
@overload
def lint_many(
    models: Iterable[Model],
    *,
    jobs: Optional[int] = None,
    dims: Optional[Mapping[str, int]] = None,
    allow: Iterable[str] = (),
    limits: _Limits = None,
    return_exceptions: bool,
    initializers_as_constants: bool = False,
    max_findings: int = ...,
) -> List[Union[Report, LoadError]]: ...
def main(argv: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None) -> int: ...
