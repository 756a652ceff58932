"""The walkthrough of docs/writing-a-challenge.md, step by step, for each language: `bouts new
challenge`, a first `bouts check` that shows the measured scores and asks for the author's, the
expected scores written (from fixtures/expected_scores.toml, nothing else edited), `bouts check`
passing, then `bouts new submission` scored with `bouts score`."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app

EXPECTED = tomllib.loads((Path(__file__).with_name("fixtures") / "expected_scores.toml").read_text())
FAMILIES = {"python": "recovery-lab", "javascript": "recovery-lab", "typescript": "fog-of-war"}


def _bouts(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _write_expected(anchor: Path, scores: dict[str, float]) -> None:
    path = anchor / "expected.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count("[expected]\n") == 1
    lines = "".join(f"{k} = {v}\n" for k, v in scores.items())
    path.write_text(text.replace("[expected]\n", "[expected]\n" + lines), encoding="utf-8")


@pytest.mark.sandbox
@pytest.mark.parametrize("language", ["python", "javascript", "typescript"])
def test_the_walkthrough_generates_checks_and_scores_a_challenge(language: str, tmp_path: Path) -> None:
    challenge = tmp_path / "my-challenge"
    # 1. the skeleton
    code, out = _bouts("new", "challenge", str(challenge), "--language", language, "--family", FAMILIES[language])
    assert code == 0, out
    # 2. a first check: everything passes but the expected scores the author has not written yet
    code, out = _bouts("check", str(challenge), "--runs", "1", "--json")
    report = json.loads(out)
    assert code == 1
    errors = [p for p in report["problems"] if p["level"] == "error"]
    assert [(p["file"], p["field"]) for p in errors] == [
        (f"anchors/{level}/expected.toml", "expected") for level in ("low", "mid", "high")
    ], errors
    assert all(a["measured"]["final"] is not None for a in report["anchors"])
    # 3. the author's judgement, and nothing else
    for level in ("low", "mid", "high"):
        _write_expected(challenge / "anchors" / level, EXPECTED[language][level])
    # 4. the check passes: every expected score within ±10, the anchors span the bands
    code, out = _bouts("check", str(challenge), "--runs", "2", "--json")
    report = json.loads(out)
    assert code == 0, out
    assert report["launch"] is True
    assert [p for p in report["problems"] if p["check"] == "anchors"] == []
    assert all(c["ok"] for a in report["anchors"] for c in a["checks"])
    # 5. a submission to start from, scored
    attempt = tmp_path / "my-attempt"
    code, out = _bouts("new", "submission", str(attempt), "--challenge", str(challenge), "--agent", "me")
    assert code == 0, out
    code, out = _bouts("score", str(challenge), str(attempt), "--json", "--no-cache", "--tests-only")
    card = json.loads(out)
    assert code == 0 and card["agent"] == "me"
    assert card["components"]["static_tests"]["score"] == 0.0  # the starter's bug fails every visible and hidden test
