"""Spec checks of ``bouts check``: what the loader enforces, plus what a launch needs on top.

``load_challenge`` already refuses a malformed ``challenge.toml``, an unknown family, a weights
override that breaks the SPEC's rules, a missing required directory and a bad severity marker;
here its ``ChallengeError`` becomes a problem naming the file and the field. On a loaded challenge
:func:`spec_problems` adds the launch rules (pure, over the challenge and its file list).
"""

from __future__ import annotations

import contextlib
import fnmatch
import tomllib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bouts.calibration.report import Problem
from bouts.errors import ChallengeError
from bouts.loading import load_challenge, toml_loads
from bouts.loading.challenge import ANCHOR_LEVELS
from bouts.models.challenge import Challenge

STEERING_FILES = frozenset({"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"})


def _p(level: str, message: str, file: str | None = None, field: str | None = None) -> Problem:
    return Problem(check="spec", level=level, message=message, file=file, field=field)  # type: ignore[arg-type]


def load_or_problem(path: Path) -> tuple[Challenge | None, list[Problem]]:
    """Load the challenge; a ``ChallengeError`` becomes an error problem (file relative to ``path``)."""
    try:
        return load_challenge(path), []
    except ChallengeError as e:
        file = e.file
        if file is not None:
            with contextlib.suppress(ValueError):  # shown as given when outside the challenge
                file = str(Path(file).relative_to(path))
        return None, [_p("error", e.message, file, e.field)]


def spec_problems(challenge: Challenge, files: Sequence[str]) -> list[Problem]:
    """Launch rules over a loaded challenge and its files (paths relative to the root). Pure."""
    spec = challenge.spec
    problems: list[Problem] = []
    for rel in files:
        parts = rel.split("/")
        if parts[0] == "tests" and parts[-1] in STEERING_FILES:
            problems.append(_p("error", "steers pytest; tests must stand alone (docs/writing-a-challenge.md §1)", rel))
    names = Counter(rel.rsplit("/", 1)[-1] for suite in challenge.test_files.values() for rel in suite)
    for name, n in sorted(names.items()):
        if n > 1:
            problems.append(_p("error", f"{n} test files share the name '{name}'; suites are imported by basename",
                               "tests", name))
    for level in ANCHOR_LEVELS:
        if level not in challenge.anchors:
            problems.append(_p("error", "anchor missing: every challenge needs low, mid and high anchors (SPEC §3)",
                               f"anchors/{level}"))
        elif f"anchors/{level}/expected.toml" not in files:
            problems.append(_p("error", "no expected.toml: the anchor's expected scores are missing",
                               f"anchors/{level}/expected.toml"))
    if not any(fnmatch.fnmatch("tests/visible/test_x.py", g) for g in spec.protected):
        problems.append(_p("warning", "no pattern protects tests/**: editing the tests would not be a bright line",
                           "challenge.toml", "protected"))
    for i, d in enumerate(spec.deliverables):
        if d.required and not d.expect:
            problems.append(_p("warning", "no expected facts: the deliverables judge cannot check accuracy",
                               "challenge.toml", f"deliverables[{i}].expect"))
    if not spec.decomposition:
        problems.append(_p("warning", "no reference decomposition: the strategy judge has nothing to compare",
                           "challenge.toml", "decomposition"))
    if spec.budgets.tokens is None:
        problems.append(_p("warning", "no token budget: efficiency cannot measure token burn",
                           "challenge.toml", "budgets.tokens"))
    if not challenge.test_files.get("adversarial"):
        problems.append(_p("warning", "no pre-built adversarial tests", "tests/adversarial"))
    elif len(set(challenge.severities.values())) < 2:
        problems.append(_p("warning", "every adversarial test has the same severity; mix them",
                           "tests/adversarial"))
    starter = {r.split("/")[1] for r in files if r.startswith("starter/") and r.count("/") >= 1}
    reference = {r.split("/")[1] for r in files if r.startswith("reference/") and r.count("/") >= 1}
    for extra in sorted(reference - starter):
        problems.append(_p("warning", "not in starter/: reference/ should have the starter's shape",
                           f"reference/{extra}"))
    return problems


def read_expected(text: str, *, shown: str, allow_empty: bool = False) -> dict[str, float]:
    """The ``[expected]`` table of an anchor's ``expected.toml``. Raises ``ChallengeError``; with
    ``allow_empty``, an empty or absent table (a new anchor, ``bouts new``) is ``{}``."""
    try:
        data = toml_loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ChallengeError(f"not valid TOML: {e}", file=shown) from e
    table = data.get("expected")
    if allow_empty and (table is None or table == {}):
        return {}
    if not isinstance(table, dict) or not table:
        raise ChallengeError("no [expected] table with scores", file=shown, field="expected")
    out: dict[str, float] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
            raise ChallengeError(f"must be a number 0-100, got {value!r}", file=shown, field=f"expected.{key}")
        out[key] = float(value)
    return out
