"""The challenge contract (SPEC §5): ``challenge.toml`` and the loaded challenge directory."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Severity = Literal["critical", "high", "medium", "low"]
ProfileName = Literal["engine", "four-judge", "composite"]
TestFramework = Literal["pytest", "node:test", "vitest", "jest"]
Suite = Literal["visible", "hidden", "adversarial", "generated"]
"""``generated``: adversarial tests written per submission by ``bouts.adversarial`` (never in SUITES:
no challenge directory holds them)."""
SUITES: tuple[Suite, ...] = ("visible", "hidden", "adversarial")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Strict):
    """Resource limits applied to every test run of this challenge."""

    test_timeout_s: float = Field(10.0, gt=0, le=600)
    """Wall-clock budget of one test, enforced from outside the test."""
    suite_timeout_s: float = Field(600.0, gt=0, le=7200)
    """Wall-clock budget of a whole suite run; the process tree is killed past it."""
    memory_mb: int = Field(1024, ge=64, le=65536)
    """Address-space cap of every process in the sandbox."""
    max_processes: int = Field(64, ge=4, le=4096)
    """Cap on processes/threads the sandboxed run may hold at once."""
    max_file_mb: int = Field(64, ge=1, le=4096)
    """Largest file a test may write."""
    max_output_kb: int = Field(256, ge=1, le=65536)
    """Output kept per test; the rest is cut off, never buffered."""


class Deliverable(_Strict):
    """A written output the agent must leave in ``deliverables/``."""

    path: str
    """Path under the submission's ``deliverables/`` directory, e.g. ``ROOT_CAUSE.md``."""
    kind: str = "document"
    """What it is: root-cause-analysis, adr, docs, ..."""
    required: bool = True
    expect: list[str] = Field(default_factory=list)
    """Facts an accurate deliverable states (used by the offline deliverables judge)."""

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str) -> str:
        parts = v.replace("\\", "/").split("/")
        if not v or v.startswith("/") or ".." in parts or ":" in parts[0]:
            raise ValueError(f"must be a relative path inside deliverables/ without '..', got {v!r}")
        return v


class DecompositionStep(_Strict):
    """One step of the challenge's reference decomposition."""

    id: str
    description: str
    kinds: list[str] = Field(default_factory=list)
    """Trajectory event kinds that can realise this step (read, edit, run, ...)."""
    paths: list[str] = Field(default_factory=list)
    """Glob patterns of files this step touches."""


class Budgets(_Strict):
    tokens: int | None = Field(None, ge=1)
    iterations: int | None = Field(None, ge=1)
    time_s: float | None = Field(None, gt=0)


class AdversarialConfig(_Strict):
    severity_weights: dict[Severity, float] = Field(
        default_factory=lambda: {"critical": 5.0, "high": 3.0, "medium": 2.0, "low": 1.0}
    )
    prebuilt_share: float = Field(0.4, ge=0, le=1)
    """Share of the adversarial weight held by the challenge's pre-built tests (SPEC: about 40%)."""
    default_severity: Severity = "medium"
    generate: bool = True
    """Generate adversarial tests from each submission's code (``docs/adversarial.md``) for the
    other ``1 − prebuilt_share`` (SPEC §1). On by default; ``false`` leaves the pre-built half alone."""
    invalid_input: Literal["out-of-scope", "rejected"] = "out-of-scope"
    """What the challenge asks of input outside its contract: ``rejected`` (it must raise a
    deliberate error of the reference's built-in kind: ``ValueError`` for ``InvalidInput(ValueError)``)
    turns on out-of-contract probing, each value compared with the reference's rejection;
    ``out-of-scope`` (the default) generates valid inputs only (``docs/adversarial.md``, "The
    reference oracle")."""
    opaque_returns: list[str] = Field(default_factory=list)
    """Entries (``module:qualname``, e.g. ``ledger.core:Ledger.reserve``) whose return value the
    contract leaves open (an id, a handle, a timestamp): the reference oracle compares only how
    their calls end, never the value (``docs/adversarial.md``, "The reference oracle")."""
    test_timeout_s: float = Field(30.0, gt=0, le=600)
    """Wall-clock budget of one generated test, instead of ``[limits] test_timeout_s``: generated
    tests are bounded by example count, and this is sized for a loaded machine
    (``docs/adversarial.md``, "Time budget")."""

    @field_validator("opaque_returns")
    @classmethod
    def _entries(cls, v: list[str]) -> list[str]:
        for entry in v:
            module, _, qualname = entry.partition(":")
            if not (module and qualname and all(p.isidentifier() for p in (*module.split("."), *qualname.split(".")))):
                raise ValueError(f"'{entry}' is not an entry: write module:qualname, e.g. ledger.core:Ledger.reserve")
        return v

    @field_validator("severity_weights")
    @classmethod
    def _positive(cls, v: dict[str, float]) -> dict[str, float]:
        for name, w in v.items():
            if w <= 0:
                raise ValueError(f"severity weight of '{name}' must be > 0, got {w}")
        return v


class AttributionSource(_Strict):
    """A source whose code a submission may reuse only with attribution (``[attribution] sources``)."""

    path: str
    """A file or a folder of the challenge, relative to its root (e.g. ``known/lru_recipe.py``)."""
    names: list[str] = Field(default_factory=list, max_length=20)
    """What else an attribution note may name besides the path and its files' names: a title, an
    author, a URL (compared case-insensitively)."""

    @field_validator("path")
    @classmethod
    def _inside(cls, v: str) -> str:
        parts = v.replace("\\", "/").split("/")
        if not v.strip() or v.startswith("/") or ".." in parts or ":" in parts[0]:
            raise ValueError(f"must be a relative path inside the challenge without '..', got {v!r}")
        return v

    @field_validator("names")
    @classmethod
    def _specific(cls, v: list[str]) -> list[str]:
        for name in v:
            if len(name.strip()) < 3:
                raise ValueError(f"each name must have at least 3 characters (it is looked for in text), got {name!r}")
        return v


class AttributionConfig(_Strict):
    """Known sources a submission may copy only with attribution (docs/writing-a-challenge.md)."""

    sources: list[AttributionSource] = Field(default_factory=list, max_length=50)
    """Files or folders (a string is the path alone): a new function of the submission whose
    normalised tokens match one of their functions at ``threshold`` or more, with no comment of its
    file and no deliverable naming the source, costs the strategy judge's architecture half."""
    threshold: float = Field(0.85, ge=0.5, le=1.0)
    """Similarity (difflib's ratio of normalised token sequences) from which a function is a copy."""

    @field_validator("sources", mode="before")
    @classmethod
    def _paths_alone(cls, v: object) -> object:
        return [{"path": item} if isinstance(item, str) else item for item in v] if isinstance(v, list) else v


class IntegrityConfig(_Strict):
    """What the integrity adjustment may take as confirmed (docs/writing-a-challenge.md, "Planted tests")."""

    planted: list[str] = Field(default_factory=list, max_length=50)
    """Tests or behaviours the challenge breaks on purpose: a test id (``tests/visible/test_a.py::test_b``,
    or its name ``test_b``) or a short phrase for a behaviour (``negative quantities``). An agent that
    reports one of them as broken, instead of working around it, earns the open-integrity bonus
    (SPEC §2); a report of anything else earns nothing."""

    off_limits: list[str] = Field(default_factory=list, max_length=100)
    """Files of the code the agent must not touch, as globs relative to ``code/`` (``protected``'s
    syntax: ``migrations/**``, ``config/prices.csv``): one added, changed or deleted is the ``off-limits
    access`` bright line (SPEC §2), decided from the diff against ``starter/``."""

    @field_validator("off_limits")
    @classmethod
    def _relative_globs(cls, v: list[str]) -> list[str]:
        for entry in v:
            parts = entry.split("/")
            if not entry or entry.startswith("/") or "\\" in entry or ".." in parts or "" in parts:
                raise ValueError(f"each entry is a glob relative to code/ (e.g. migrations/**), got {entry!r}")
        return v

    @field_validator("planted")
    @classmethod
    def _specific(cls, v: list[str]) -> list[str]:
        for entry in v:
            text = " ".join(entry.split())
            if len(text) < 3 or len(text) > 200:
                raise ValueError(f"each entry is a test id or a phrase of 3 to 200 characters, got {entry!r}")
            if "::" in text and not re.fullmatch(r"[^\s:]+(?:::[^\s:]+)+", text.split("[", 1)[0]):
                raise ValueError(f"{entry!r} is not a test id (file::name, no spaces)")
        if len({" ".join(e.lower().split()) for e in v}) != len(v):
            raise ValueError("the same entry is listed twice")
        return v


class Weights(_Strict):
    """A custom family override of the composite weights (fractions, e.g. 0.45)."""

    objective: float
    process: float
    strategy: float
    recovery: float
    efficiency: float


_SYSTEM_DIRS = frozenset({"usr", "bin", "sbin", "lib", "lib32", "lib64", "etc", "proc", "dev", "sys", "tmp", "run",
                          "var", "root", "bouts", "boot", "mnt", "media"})  # fmt: skip
"""Top-level directories a challenge's working path may not sit in (the sandbox needs them)."""


class TestsConfig(_Strict):
    seed: int = 1234
    """The published seed of the hidden tests' first phase."""
    framework: str | None = Field(None, pattern=r"^[a-z][a-z0-9:._+-]{0,31}$")
    """The test framework of the challenge's tests, one its language names (``TestFramework`` for the
    built-in ones; checked against ``language`` when loaded); by default the language's first
    (``pytest`` for Python, ``node:test`` for JavaScript/TypeScript). ``vitest`` and ``jest`` come
    from the challenge's own ``package.json`` + lock file (docs/javascript.md)."""
    workdir: str = "/workspace"
    """Where the code sits inside the sandbox, and the tests' working directory (e.g.
    ``/home/dev/inventory``): an ordinary project path, so code cannot tell the grader by it.
    Python and JavaScript/TypeScript (its prepared ``node_modules`` is mounted there too)."""
    tests_per_process: int = Field(1, ge=1, le=1024)
    """How many tests a forked test process may run one after another (docs/sandbox.md, "Tests per
    process"). 1, the default: a fresh process per test. More, for a suite whose tests do not depend
    on fresh interpreter state: each test keeps its own timeout, output cap, fresh database, crash
    containment and host-decided verdict, and a process ends after any test that errored, crashed or
    left anything behind; what a test leaves in the process's memory is seen by the tests after it.
    Python (pytest) challenges only."""
    preload: list[str] = Field(default_factory=list, max_length=200)
    """Library modules each worker imports after collecting, before any test process forks from it
    (e.g. ``["anyio._backends._asyncio", "pydantic.v1"]``): what every test would otherwise import
    lazily again in its own fresh process (docs/sandbox.md, "Preloaded modules"). Modules of the
    engine's environment or the challenge's prepared dependencies only: one inside the workspace, or
    one that cannot be imported, is skipped silently (``bouts check`` names a package the engine
    lacks). Python (pytest) challenges only."""
    mix: dict[Literal["functionality", "edge", "integration"], float] | None = None
    """The challenge's own target for ``bouts check``'s functionality / edge / integration lint, in
    percent summing to 100 (e.g. ``{functionality = 60, edge = 40, integration = 0}`` for a pure
    function, which has nothing to integrate); default 50 / 30 / 20. Only the lint reads it."""

    @field_validator("mix")
    @classmethod
    def _percentages(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is None:
            return value
        if any(v < 0 or v > 100 for v in value.values()) or abs(sum(value.values()) - 100) > 0.01:
            raise ValueError(f"shares must be 0-100 and sum to 100, got {dict(value)}")
        return {c: float(value.get(c, 0.0)) for c in ("functionality", "edge", "integration")}

    engine_packages: list[str] = Field(default_factory=list, max_length=50)
    """Distributions of the engine's own environment the challenge's code and tests import (e.g.
    ``["fastapi", "pydantic", "psycopg"]``): its declared dependencies at the engine's pinned versions,
    beside a ``requirements.txt`` installed at prepare time. Graded code sees nothing else of the
    engine's environment but the test framework (docs/sandbox.md, "What graded code can import")."""

    @field_validator("engine_packages")
    @classmethod
    def _distribution_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?", name):
                raise ValueError(f"{name!r} is not a distribution name (e.g. fastapi, psycopg)")
        return value

    @field_validator("preload")
    @classmethod
    def _module_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name) or len(name) > 200:
                raise ValueError(f"{name!r} is not a module name (dotted identifiers, e.g. anyio._backends._asyncio)")
        return value

    @field_validator("workdir")
    @classmethod
    def _ordinary_path(cls, value: str) -> str:
        parts = value.split("/")
        if not value.startswith("/") or value != "/" + "/".join(p for p in parts if p) or len(parts) < 2:
            raise ValueError(f"must be an absolute, normalised path such as /home/dev/project, not {value!r}")
        if any(not re.fullmatch(r"[A-Za-z0-9._-]+", p) or p in (".", "..") for p in parts[1:]):
            raise ValueError(f"each part of the path must be letters, digits, '.', '_' or '-': {value!r}")
        if parts[1] in _SYSTEM_DIRS or value in ("/home", "/home/dev"):
            raise ValueError(f"{value!r} would hide part of the system; use e.g. /home/dev/project or /srv/app")
        return value


class ChallengeSpec(_Strict):
    """The contents of ``challenge.toml``."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,79}$")
    title: str
    family: str = "default"
    profile: ProfileName = "composite"
    language: str = Field("python", pattern=r"^[a-z][a-z0-9_+-]{0,31}$")
    """A language registered in ``bouts.languages`` (``python``, ``javascript``, ``typescript`` or a
    plugin's), checked when the challenge is loaded; its entry names the default test framework
    (``bouts.languages.framework_of``)."""
    description: str = ""
    limits: Limits = Field(default_factory=Limits)
    deliverables: list[Deliverable] = Field(default_factory=list)
    protected: list[str] = Field(default_factory=lambda: ["tests/**"])
    """Glob patterns (relative to ``code/``) the agent must not modify."""
    vendored: list[str] = Field(default_factory=list, max_length=100)
    """Glob patterns (relative to ``code/``) of third-party code the submission may ship: left out of
    the quality, security and LLM judges (the integrity judge still reads it) and listed on the
    scorecard. Nothing else is excluded by folder name (``docs/writing-a-challenge.md``)."""
    decomposition: list[DecompositionStep] = Field(default_factory=list)
    budgets: Budgets = Field(default_factory=Budgets)
    weights: Weights | None = None
    """A custom composite-weight override; checked against the SPEC's rules when loaded."""
    adversarial: AdversarialConfig = Field(default_factory=AdversarialConfig)
    attribution: AttributionConfig = Field(default_factory=AttributionConfig)
    """Known sources whose reuse needs attribution (the strategy judge's architecture half)."""
    integrity: IntegrityConfig = Field(default_factory=IntegrityConfig)
    """Tests or behaviours planted broken, for the open-integrity bonus."""
    correct_threshold: float = Field(75.0, ge=0, le=100)
    """Correctness score (SPEC §1) at or above which a stated confidence counts as correct."""
    tests: TestsConfig = Field(default_factory=TestsConfig)
    services: list[Literal["postgres"]] = Field(default_factory=list)
    """Services the tests may use. ``postgres``: when the operator configures a PostgreSQL server,
    the ``bouts_pg`` fixture gives each test a rolled-back transaction on it (docs/sandbox.md)."""


class TestCase(_Strict):
    """One expected test, known statically from the pristine test tree."""

    __test__ = False  # not a pytest class

    id: str
    """pytest node id relative to the workspace, e.g. ``tests/hidden/test_x.py::test_y``."""
    suite: Suite
    severity: Severity | None = None
    """Set for adversarial tests."""


class Challenge(_Strict):
    """A loaded, validated challenge directory."""

    root: Path
    spec: ChallengeSpec
    content_hash: str
    """sha256 over every file of the challenge (sorted paths and bytes)."""
    suite_hashes: dict[Suite, str]
    """sha256 of each test suite directory."""
    test_files: dict[Suite, list[str]]
    """Test files of each suite, relative to the challenge root (e.g. ``tests/hidden/test_a.py``)."""
    severities: dict[str, Severity] = Field(default_factory=dict)
    """Severity of each adversarial test file or test function: keys are node-id prefixes."""
    anchors: dict[str, Path] = Field(default_factory=dict)
    """Anchor submissions by level (low/mid/high)."""
    quarantined: dict[str, str] = Field(default_factory=dict)
    """Tests ``bouts check`` quarantined (``quarantine.toml``: they failed on the reference), by id →
    their first recorded failure: never counted for or against a submission (docs/calibration.md)."""

    @property
    def starter(self) -> Path:
        return self.root / "starter"

    @property
    def reference(self) -> Path:
        return self.root / "reference"
