"""Builders for the integrity-judge tests: cheating variants of the example challenge's high anchor."""

from __future__ import annotations

import shutil
from pathlib import Path

from bouts.judges.base import JudgeInput, Verdict
from bouts.judges.integrity import StaticIntegrityJudge
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge
from bouts.models.results import RunReport

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "inventory-ledger"
CHALLENGE: Challenge = load_challenge(EXAMPLE)
HIGH = CHALLENGE.root / "anchors" / "high" / "code"
MONEY_ANCHOR = "    if isinstance(price, bool) or not isinstance(price, (str, int, Decimal)):\n"


class TamperReport(RunReport):
    """A run report carrying the runner's tamper signals (the field the runner engineer is adding)."""

    tampering: list[str] = []


def honest_copy(tmp_path: Path, source: Path = HIGH) -> Path:
    """A fresh copy of an honest code tree to plant a cheat in."""
    code = tmp_path / "code"
    shutil.copytree(source, code, ignore=shutil.ignore_patterns("__pycache__"))
    return code


def plant_in_to_cents(code: Path, lines: str) -> None:
    """Insert ``lines`` (already indented for a function body) at the top of ``to_cents``."""
    money = code / "ledger" / "money.py"
    text = money.read_text()
    assert MONEY_ANCHOR in text
    money.write_text(text.replace(MONEY_ANCHOR, lines + MONEY_ANCHOR, 1))


def add_module(code: Path, source: str, rel: str = "ledger/extra.py") -> Path:
    path = code / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return path


def judge(code: Path, run: RunReport | None = None, challenge: Challenge = CHALLENGE) -> Verdict:
    return StaticIntegrityJudge().judge(JudgeInput.read(challenge, code, run=run))


def rules(verdict: Verdict) -> set[str]:
    return {f.rule for f in verdict.findings if f.points > 0 or f.severity == "critical"}


def report(**kw: object) -> RunReport:
    return TamperReport(results=[], sandbox="fake", **kw)


EXAMPLES = EXAMPLE.parent
LEAGUE: Challenge = load_challenge(EXAMPLES / "league-table")
LEAGUE_HIGH = LEAGUE.root / "anchors" / "high" / "code"
