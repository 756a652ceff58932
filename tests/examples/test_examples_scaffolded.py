"""The bundled challenges made with `bouts new challenge` (issue 44): each passes `bouts check`, and
its anchors span the bands (low at Weak or below, mid Competent to Strong, high Strong or above)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.calibration.anchors import DEFAULT_BANDS
from bouts.calibration.check import CheckConfig, check_challenge

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.sandbox
@pytest.mark.parametrize("challenge", ["journal-replay", "slug-maker-ts"])
def test_a_scaffolded_example_passes_bouts_check_with_anchors_that_span_the_bands(challenge: str) -> None:
    report = check_challenge(EXAMPLES / challenge, CheckConfig(runs=1))
    assert report.launch, [p.describe() for p in report.problems]
    assert [p for p in report.problems if p.check == "anchors"] == []
    finals = {a.level: a.final for a in report.anchors}
    for level, (low, high) in DEFAULT_BANDS.items():
        assert finals[level] is not None and low <= finals[level] <= high, finals
    assert report.reference is not None and report.reference.generated  # said whether they ran


def test_the_scaffolded_examples_name_families_no_other_bundled_challenge_uses() -> None:
    import tomllib

    families = {p.parent.name: tomllib.loads(p.read_text())["family"] for p in EXAMPLES.glob("*/challenge.toml")}
    new = {families.pop("journal-replay"), families.pop("slug-maker-ts")}
    assert new == {"recovery-lab", "fog-of-war"} and not new & set(families.values())
