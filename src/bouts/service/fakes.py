"""In-tree fakes of the service's interfaces, for tests and load rigs (never used by default).

``instant_scorer`` stands in for ``score()`` where the point is the queue and the storage, not the
sandbox: it reads ``submission.toml`` with the real loader and returns a scorecard whose final is
``(iteration × 7 + len(agent)) % 101`` at once. A code/ file named ``INFRA_FAIL`` makes it report an
infrastructure failure (``infra_error`` on the card), so retries can be exercised; one named
``DIVERGE`` gives objective 90 and integrity 30 and the ``judge_divergence`` flag (a review item);
one named ``KILL_WORKER`` SIGKILLs the scoring process the first time (a worker lost mid-score);
one named ``STALL`` blocks the scoring until its process is stopped (a long scoring, for shutdown);
one named ``STALL_ONCE`` does so the first time only (a worker to kill mid-score, deterministically);
one named ``HOLD`` marks the archive (``<archive>.held``) and waits until a file ``<archive>.release``
exists, then finishes (a scoring that ends when a test says so, e.g. while the database is away);
one named ``COUNT`` appends a line to ``<archive>.scorings`` each time it is scored (how many times a
submission was scored, whatever the database says).
A challenge holding a top-level file ``FAKE_BONUS`` (an integer) adds it to the final, capped at
100: a fixed challenge version that a re-score picks up.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from pathlib import Path

from bouts.loading import load_submission
from bouts.models.scorecard import ComponentScore, FlagModel, Reproducibility, Scorecard
from bouts.pipeline import ScoreConfig
from bouts.scoring.profiles import band
from bouts.version import __version__


def instant_scorer(challenge: Path, submission: Path, config: ScoreConfig) -> Scorecard:
    with tempfile.TemporaryDirectory(prefix="bouts-fake-") as tmp:
        loaded = load_submission(submission, Path(tmp))
        infra = (loaded.code_dir / "INFRA_FAIL").exists()
        diverge = (loaded.code_dir / "DIVERGE").exists()
        if (loaded.code_dir / "KILL_WORKER").exists():
            _die_once(submission)
        if (loaded.code_dir / "STALL").exists():
            threading.Event().wait()  # until the process is stopped
        if (loaded.code_dir / "STALL_ONCE").exists() and _first_time(submission, ".stalled"):
            threading.Event().wait()
        if (loaded.code_dir / "HOLD").exists():
            Path(f"{submission}.held").touch()
            while not Path(f"{submission}.release").exists():
                time.sleep(0.05)
        if (loaded.code_dir / "COUNT").exists():
            with open(f"{submission}.scorings", "a", encoding="utf-8") as out:
                out.write(f"{os.getpid()}\n")
    meta = loaded.meta
    bonus = challenge / "FAKE_BONUS"
    final = min(100, (meta.iteration * 7 + len(meta.agent)) % 101 + (int(bonus.read_text()) if bonus.is_file() else 0))
    components = {"objective": ComponentScore(score=90.0), "integrity": ComponentScore(score=30.0)} if diverge else {}
    flags = [FlagModel(code="judge_divergence", message="objective 90 vs integrity 30: 60 apart", level=1)]
    return Scorecard(
        challenge=meta.challenge, agent=meta.agent, iteration=meta.iteration, profile="composite", family="default",
        weights={}, weights_source="default", final=final, raw=float(final), band=band(final), provisional=False,
        components=components, adjustments={}, profiles={"composite": final}, profile_details={},
        math=["instant (fake)"], flags=flags if diverge else [],
        infra_error="fake sandbox broke" if infra else None,
        reproducibility=Reproducibility(engine_version=__version__, challenge_hash="fake", suite_hashes={},
                                        submission_hash=loaded.content_hash, sandbox="none"),
    )  # fmt: skip


def _die_once(submission: Path) -> None:
    if _first_time(submission, ".killed"):
        os.kill(os.getpid(), signal.SIGKILL)


def _first_time(submission: Path, suffix: str) -> bool:
    """True once per archive (a marker file beside it remembers, holding the scoring process's pid)."""
    marker = Path(f"{submission}{suffix}")
    if marker.exists():
        return False
    marker.write_text(str(os.getpid()), encoding="utf-8")
    return True
