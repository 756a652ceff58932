"""A stored scorecard reproduces from the command line (issue 18, item 5): ``bouts score`` takes
the fresh seed and the generated adversarial tests' seed, and ``--reproduce`` reads all three
seeds from a scorecard as ``bouts score --json`` prints it or the service serves it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from service_helpers import CHALLENGE
from service_web_helpers import card

from bouts.models.scorecard import GeneratedAdversarialModel
from bouts.pipeline import ScoreConfig

BOUTS = Path(sys.executable).parent / "bouts"


def test_reproducing_takes_the_recorded_seeds_unless_given() -> None:
    stored = card("a", 1, 70)
    stored = stored.model_copy(update={
        "reproducibility": stored.reproducibility.model_copy(update={"seeds": [11, 987654]}),
        "generated_adversarial": GeneratedAdversarialModel(seed=4242, analyser="python-ast/1"),
    })  # fmt: skip
    got = ScoreConfig().reproducing(stored)
    assert (got.seed, got.fresh_seed, got.adversarial_seed) == (11, 987654, 4242)
    assert ScoreConfig(fresh_seed=5).reproducing(stored).fresh_seed == 5  # an explicit option wins
    none = stored.model_copy(update={"generated_adversarial": None,
                                     "reproducibility": stored.reproducibility.model_copy(update={"seeds": []})})
    assert ScoreConfig().reproducing(none) == ScoreConfig()


def test_an_unreadable_scorecard_is_one_line_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "card.json"
    bad.write_text('{"schema": "bouts.scorecard/1"}')
    done = subprocess.run([str(BOUTS), "score", str(CHALLENGE), str(CHALLENGE / "anchors" / "high"), "--reproduce",
                           str(bad)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and str(bad) in done.stderr and "reproduce" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (scripts/setup installs it)")
def test_a_stored_scorecard_reproduces_from_the_cli(tmp_path: Path) -> None:
    """Score once (random fresh seed), then ``--reproduce`` that card without the cache: the same
    seeds and the same final."""
    sub = str(CHALLENGE / "anchors" / "high")
    env_cache = ["--cache-dir", str(tmp_path / "cache")]
    first = subprocess.run([str(BOUTS), "score", str(CHALLENGE), sub, "--json", *env_cache],
                           capture_output=True, text=True, timeout=900)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    stored = tmp_path / "card.json"
    stored.write_text(json.dumps({"scorecard": json.loads(first.stdout)}))  # as the service serves it
    again = subprocess.run([str(BOUTS), "score", str(CHALLENGE), sub, "--json", "--no-cache", "--reproduce",
                            str(stored), *env_cache], capture_output=True, text=True, timeout=900)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    assert b["reproducibility"]["seeds"] == a["reproducibility"]["seeds"]
    assert (b.get("generated_adversarial") or {}).get("seed") == (a.get("generated_adversarial") or {}).get("seed")
    assert b["final"] == a["final"]
