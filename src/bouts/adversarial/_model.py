"""What the analysis finds and what the generator writes: plain frozen data, no I/O.

The five target kinds come from SPEC §1 / issue 7. Severities are per kind (table in
``docs/adversarial.md``); the challenge's ``[adversarial] severity_weights`` turn them into weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from bouts.models.challenge import Severity

TargetKind = Literal[
    "unvalidated_input", "non_atomic_update", "missing_null_check", "weak_type", "pattern_mismatch",
    "reference_mismatch", "boundary",
]  # fmt: skip
TARGET_KINDS: tuple[TargetKind, ...] = (
    "unvalidated_input", "non_atomic_update", "missing_null_check", "weak_type", "pattern_mismatch",
    "reference_mismatch", "boundary",
)  # fmt: skip

SEVERITY: Mapping[str, Severity] = {
    # Input that reaches SQL text or a file path unchecked is an injection / traversal: critical.
    "unvalidated_input:sql": "critical",
    "unvalidated_input:path": "critical",
    "unvalidated_input": "high",
    # A request the schema allows (or a malformed one) that the service answers with a 5xx, or a
    # response outside its own schema: input the service did not validate.
    "unvalidated_input:http": "high",
    # A lost update corrupts state silently, in production only: high.
    "non_atomic_update": "high",
    "missing_null_check": "medium",
    "pattern_mismatch": "medium",
    # A wrong-typed argument is first the caller's mistake; crashing on it is still a defect.
    "weak_type": "low",
    # The reference oracle (docs/adversarial.md): a wrong answer to valid input is a wrong program;
    # failing to reject invalid input the challenge requires rejected is a robustness defect.
    "reference_mismatch": "high",
    "reference_mismatch:invalid": "medium",
    # A visible example with a value replaced by a literal the submission's own code compares with
    # (or its neighbour), judged against the reference: a wrong answer at the code's own boundary.
    "boundary": "high",
}


def severity_of(kind: TargetKind, sink: str) -> Severity:
    """The severity of a target: by kind, refined by sink for unvalidated input."""
    return SEVERITY.get(f"{kind}:{sink}", SEVERITY[kind])


@dataclass(frozen=True)
class Param:
    """One parameter of a callable, as far as the source tells."""

    name: str
    annotation: str | None = None
    """The annotation's source text, e.g. ``int | None``."""
    has_default: bool = False
    keyword_only: bool = False


@dataclass(frozen=True)
class Target:
    """One place in the submission's code the generator should probe."""

    kind: TargetKind
    file: str
    """Path relative to the submission's ``code/``."""
    line: int
    function: str
    """Qualified name of the enclosing function, ``module:Class.method`` or ``module:func``."""
    sink: str
    """What the value reaches: indexing, arithmetic, sql, path, conversion, attribute, re.match,
    dict.get, optional-return, rmw, version, float, case, path-compare."""
    detail: str
    param: str | None = None
    """The enclosing function's parameter that drives the target (None: not driven by one)."""
    guarded: bool = False
    """The analyser saw a check; probed anyway (checks are often incomplete)."""
    attrs: tuple[str, ...] = ()
    """For ``non_atomic_update``: the instance attributes updated read-modify-write."""
    literal: str | None = None
    """For ``pattern_mismatch``: the literal the parameter is compared with, if any."""
    other_param: str | None = None
    """For ``pattern_mismatch``: the second parameter of a parameter-to-parameter comparison."""

    @property
    def severity(self) -> Severity:
        return severity_of(self.kind, self.sink)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Entry:
    """A public callable of the submission a generated test can call."""

    module: str
    """Importable module, e.g. ``ledger.core``."""
    qualname: str
    """``func`` or ``Class.method``."""
    params: tuple[Param, ...]
    ctor: tuple[Param, ...] | None = None
    """For a method: the class's constructor parameters (None for a plain function)."""
    setup: tuple[tuple[str, tuple[Param, ...]], ...] = ()
    """For a method: methods called first, with plain arguments, to put the object in a useful
    state (e.g. ``add_item`` before ``ship``)."""

    @property
    def is_method(self) -> bool:
        return "." in self.qualname


@dataclass(frozen=True)
class AppRecipe:
    """How a test builds the submission's ASGI app: ``module.attr``, called with ``kwargs`` when
    ``attr`` is a factory. Plain data, written verbatim into the generated test."""

    module: str
    attr: str
    call: bool
    kwargs: tuple[tuple[str, object], ...] = ()
    """Argument name → a plain value, or a :class:`HandleRecipe` for an infrastructure handle."""


@dataclass(frozen=True)
class HandleRecipe:
    """An infrastructure handle built for a test: ``module.cls(**ctor)`` (a value ``TMP_PATH`` is a
    fresh file path in a temporary directory), then passed to each ``init`` function."""

    module: str
    cls: str
    ctor: tuple[tuple[str, object], ...]
    init: tuple[tuple[str, str, str], ...] = ()
    """(module, function, parameter) called with the handle, e.g. ``init_schema(db)``."""


TMP_PATH = "<fresh temporary file>"


@dataclass(frozen=True)
class HttpOperation:
    """One operation of an HTTP app, probed with requests generated from its OpenAPI schema."""

    method: str
    """Upper case: GET, POST, ..."""
    path: str
    """As routed, e.g. ``/rooms/{room_id}/bookings``."""
    operation_id: str
    app: AppRecipe


@dataclass(frozen=True)
class Probe:
    """A target reached from a public entry: what one generated test exercises."""

    target: Target
    entry: Entry
    param: str | None
    """The entry's parameter that carries the adversarial value (None for race and HTTP tests)."""
    other_param: str | None = None
    http: HttpOperation | None = None
    """For an HTTP operation: requests come from the app's OpenAPI schema, not from ``param``."""


@dataclass(frozen=True)
class Analysis:
    """What an analyser found in one submission."""

    language: str
    analyser: str
    """Name and version, e.g. ``python-ast/1``."""
    targets: tuple[Target, ...]
    probes: tuple[Probe, ...]
    skipped: tuple[tuple[Target, str], ...] = ()
    """Targets no test could safely reach, with the reason."""
    notes: tuple[str, ...] = field(default_factory=tuple)
