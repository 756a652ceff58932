"""SPEC §2's two cliffs, after the clamp, in every profile, each a line of the math."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bouts.scoring import profiles
from bouts.scoring.explain import Explained
from bouts.scoring.profiles import Adjustments, Cliffs

ENGINE = ("static_tests", "adversarial", "code_quality", "deliverables", "security", "stability")
TRAJECTORY = ("process", "strategy", "recovery", "efficiency", "integrity")


def scores(value: float) -> dict[str, Explained]:
    s = {k: Explained(value) for k in ENGINE + TRAJECTORY}
    s["objective"] = profiles.objective(s)
    return s


@pytest.mark.parametrize("profile", ["engine", "four-judge", "composite"])
def test_a_bright_line_caps_every_profile_at_14(profile: str) -> None:
    results = profiles.all_profiles(scores(100), cliffs=Cliffs(bright_lines=("tests modified",)))
    result = results[profile]
    assert result.final == 14 and result.band == "Failed"
    before = "95" if profile == "composite" else "100"  # the default family's weights sum to 0.95
    assert f"{profile}: integrity cliff: tests modified caps the final at 14: {before} → 14" in result.math


@pytest.mark.parametrize("profile", ["engine", "four-judge", "composite"])
def test_a_critical_security_finding_caps_every_profile_at_75(profile: str) -> None:
    cliffs = Cliffs(critical_findings=("semgrep:sql-injection at app/db.py:12",))
    result = profiles.all_profiles(scores(99), cliffs=cliffs)[profile]
    assert result.final == 75 and result.band == "Strong"
    assert any(line.startswith(f"{profile}: security cliff: semgrep:sql-injection") for line in result.math)


def test_the_cliffs_come_after_the_clamp_and_the_adjustments() -> None:
    """+10 of bonus cannot lift a capped score: the cap applies to the clamped total."""
    adj = Adjustments(integrity=Explained(10.0, ("bonus",)))
    result = profiles.composite(scores(100), adjustments=adj, cliffs=Cliffs(critical_findings=("cwe-798",)))
    lines = list(result.math)
    assert lines.index("composite: 105 clamped to 100") < next(i for i, x in enumerate(lines) if "security cliff" in x)
    assert result.final == 75


def test_a_cliff_below_its_cap_is_still_shown() -> None:
    result = profiles.engine(scores(40), Cliffs(critical_findings=("cwe-798",)))
    assert result.final == 40
    assert "engine: security cliff: cwe-798 caps the final at 75: 40 is already at or below it" in result.math


@given(st.floats(0, 100), st.booleans(), st.booleans())
def test_cliffs_never_raise_a_score(value: float, bright: bool, critical: bool) -> None:
    cliffs = Cliffs(("tests modified",) if bright else (), ("cwe-89",) if critical else ())
    for name, result in profiles.all_profiles(scores(value), cliffs=cliffs).items():
        plain = profiles.all_profiles(scores(value))[name]
        assert result.final is not None and plain.final is not None and result.final <= plain.final
        assert result.final <= (14 if bright else 75 if critical else 100)
