"""``bouts new challenge`` and ``bouts new submission``: write a runnable skeleton an author edits.

The challenge skeleton is one small, complete bug hunt (a basket total that ignores quantities) in
the chosen language: starter, reference, one test file per suite, three anchors (code, deliverable,
canonical trajectory, ``submission.toml``) and an ``expected.toml`` per anchor whose ``[expected]``
table is left for the author. ``bouts check`` passes on it once those scores are written
(docs/writing-a-challenge.md, "Walkthrough"). The files come from ``templates/<language>/``
(``*.tmpl``, with ``{{id}}``, ``{{title}}`` and ``{{family}}`` filled in); the anchors' trajectories,
deliverables and TOML files are written here, from the language's :class:`Flavour`.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bouts.errors import InputError
from bouts.scoring.weights import FAMILIES

TEMPLATES = Path(__file__).with_name("templates")
LANGUAGES = ("python", "javascript", "typescript")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class Flavour:
    """What the anchors' trajectories and deliverables name, per language."""

    template: str
    source: str
    """The file the bug is in, relative to ``code/``."""
    visible: str
    function: str
    error: str
    visible_run: str
    full_run: str
    lint: str
    probe: str
    """A one-off command that feeds the function an invalid line."""


FLAVOURS: dict[str, Flavour] = {
    "python": Flavour(
        template="python", source="pricing/cart.py", visible="tests/visible/test_pricing_visible.py",
        function="total_cents", error="ValueError", visible_run="python -m pytest -q tests/visible",
        full_run="python -m pytest -q tests", lint="ruff check pricing",
        probe="python -c \"from pricing import total_cents\ntry: total_cents([('refund', 500, -1)])\n"
              "except ValueError as e: print('rejected:', e)\"",
    ),
    "javascript": Flavour(
        template="javascript", source="src/pricing.mjs", visible="tests/visible/pricing.test.mjs",
        function="totalCents", error="RangeError", visible_run="node --test tests/visible",
        full_run="node --test tests", lint="npx eslint src",
        probe="node -e \"import('./src/pricing.mjs').then((m) => { try { m.totalCents([['refund', 500, -1]]); } "
              "catch (e) { console.log('rejected:', e.message); } })\"",
    ),
    "typescript": Flavour(
        template="typescript", source="src/pricing.ts", visible="tests/visible/pricing.test.ts",
        function="totalCents", error="RangeError", visible_run="npx tsx --test tests/visible/*.test.ts",
        full_run="npx tsx --test tests/visible/*.test.ts", lint="npx tsc --noEmit",
        probe="npx tsx -e \"import { totalCents } from './src/pricing.ts'; try { totalCents([['refund', 500, -1]]); } "
              "catch (e) { console.log('rejected:', (e as Error).message); }\"",
    ),
}  # fmt: skip


def new_challenge(target: Path, *, language: str, family: str, challenge_id: str | None = None,
                  title: str | None = None) -> list[Path]:  # fmt: skip
    """Write the skeleton into ``target`` (absent or empty); return the files written, sorted."""
    if language not in FLAVOURS:
        raise InputError(f"unknown language '{language}'; one of: {', '.join(LANGUAGES)}", field="language")
    if family not in FAMILIES:
        raise InputError(f"unknown family '{family}'; one of: {', '.join(FAMILIES)}", field="family")
    cid = challenge_id or re.sub(r"[^a-z0-9._-]+", "-", target.resolve().name.lower()).strip("-._")
    if not ID_RE.match(cid):
        raise InputError(f"'{cid}' is not a challenge id (lowercase letters, digits, '.', '_', '-'; give --id)",
                         field="id")  # fmt: skip
    _empty_target(target)
    f = flavour = FLAVOURS[language]
    values = {"id": cid, "title": title or f"{cid}: a basket total that ignores quantities", "family": family}
    written: list[Path] = []
    base = TEMPLATES / flavour.template
    for src in sorted(base.rglob("*.tmpl")):
        rel = src.relative_to(base).with_suffix("")
        written.append(_write(target / rel, _fill(src.read_text(encoding="utf-8"), values)))
    starter = {
        f.source: (target / "starter" / f.source).read_text(encoding="utf-8"),
        f.visible: (target / f.visible).read_text(encoding="utf-8"),
    }  # what the anchors' reads show
    for level, anchor in ANCHORS.items():
        root = target / "anchors" / level
        written.append(_write(root / "submission.toml", submission_toml(f"anchor-{level}", cid, anchor["elapsed"])))
        written.append(_write(root / "trajectory.jsonl", trajectory_jsonl(anchor["events"](flavour, starter))))
        written.append(_write(root / "deliverables" / "ROOT_CAUSE.md", anchor["deliverable"](flavour)))
        written.append(_write(root / "expected.toml", expected_toml(level, anchor["intent"], family)))
    return sorted(written)


def new_submission(target: Path, *, challenge: Path | None, challenge_id: str | None, agent: str,
                   iteration: int = 1) -> list[Path]:  # fmt: skip
    """Write an empty submission into ``target``: ``submission.toml``, ``code/`` (the challenge's
    starter when a challenge directory is given), ``deliverables/`` and an empty trajectory."""
    if challenge is not None:
        from bouts.loading import load_challenge

        loaded = load_challenge(challenge)
        challenge_id = loaded.spec.id
    if not challenge_id:
        raise InputError("give --challenge (a challenge directory) or --id (its id)", field="challenge")
    if not agent.strip():
        raise InputError("must not be empty", field="agent")
    _empty_target(target)
    written = [_write(target / "submission.toml", submission_toml(agent, challenge_id, None, iteration))]
    code = target / "code"
    if challenge is not None:
        shutil.copytree(loaded.starter, code)
        written += [p for p in code.rglob("*") if p.is_file()]
    else:
        code.mkdir(parents=True)
    (target / "deliverables").mkdir()
    written.append(_write(target / "trajectory.jsonl", ""))
    return sorted(written)


def submission_toml(agent: str, challenge_id: str, elapsed_s: float | None, iteration: int = 1) -> str:
    """``submission.toml`` with every field of ``SubmissionMeta`` explained."""
    lines = [
        '# The submission\'s metadata (docs/writing-a-challenge.md, "submission.toml").',
        "# agent: who made it (shown on the scorecard and the leaderboard)",
        f"agent = {json.dumps(agent)}",
        "# challenge: the id in the challenge's challenge.toml; scoring refuses another challenge's id",
        f"challenge = {json.dumps(challenge_id)}",
        "# iteration: 1 for a first attempt, 2... for resubmissions after feedback",
        f"iteration = {iteration}",
        "# elapsed_s: wall-clock seconds from the start of the attempt to this submission (optional;",
        "# the efficiency judge compares it with [budgets] time_s)",
        f"elapsed_s = {elapsed_s:.1f}" if elapsed_s is not None else "# elapsed_s = 600.0",
    ]
    return "\n".join(lines) + "\n"


def trajectory_jsonl(events: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)


def expected_toml(level: str, intent: str, family: str) -> str:
    """The anchor's ``expected.toml``: the author's judgement goes in ``[expected]``."""
    w = FAMILIES[family]
    weights = (f"objective {w.objective:.0%}, process {w.process:.0%}, strategy {w.strategy:.0%}, "
               f"recovery {w.recovery:.0%}, efficiency {w.efficiency:.0%}")  # fmt: skip
    return f"""\
# The {level} anchor's expected scores: YOUR judgement of what this submission deserves, written
# before you look at what the engine measures (docs/calibration.md). `bouts check` scores the anchor
# and refuses the launch while any score you write here is more than 10 points from the measured one;
# it prints expected against measured per component, with the math line of each component off.
#
# What this anchor does: {intent}
#
# Keys: a component of the scorecard (static_tests, adversarial, code_quality, deliverables,
# security, stability, objective, process, strategy, integrity, recovery, efficiency), a profile
# (engine, four-judge, composite) or final (the challenge profile's total). Write at least final
# and the components your anchor is about. Bands: 90 Elite, 75 Strong, 55 Competent, 35 Struggling,
# 15 Weak, below 15 Failed; the low anchor should land at or below Weak, the mid one in
# Competent to Strong, the high one at Strong or above. Composite weights of family {family}: {weights}.
# static_tests and adversarial are exact: passed / total x 100 (write the arithmetic in a comment).

[expected]
# final = ...
"""


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _empty_target(target: Path) -> None:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError("exists and is not an empty directory: nothing was written", file=str(target))


def _high(f: Flavour, files: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {"t": 0.0, "kind": "read", "path": f.source, "output": files[f.source]},
        {"t": 6.0, "kind": "read", "path": f.visible, "output": files[f.visible]},
        {"t": 8.0, "kind": "usage", "tokens_in": 5200, "tokens_out": 300},
        {"t": 20.0, "kind": "run", "command": f.visible_run, "exit_code": 1, "tests": {"passed": 0, "failed": 1}},
        {"t": 26.0, "kind": "search", "query": "quantity", "output": f"{f.source}: quantity is unpacked, never used"},
        {"t": 31.0, "kind": "message", "text": f"{f.function} adds each unit price once and never multiplies by the "
                                                "quantity; the task also asks to reject invalid lines."},
        {"t": 75.0, "kind": "edit", "path": f.source},
        {"t": 77.0, "kind": "usage", "tokens_in": 7400, "tokens_out": 900},
        {"t": 90.0, "kind": "run", "command": f.visible_run, "exit_code": 0, "tests": {"passed": 1, "failed": 0}},
        {"t": 104.0, "kind": "run", "command": f.probe, "exit_code": 0,
         "output": "rejected: quantity must be a non-negative integer, got -1"},
        {"t": 118.0, "kind": "run", "command": f.full_run, "exit_code": 0, "tests": {"passed": 1, "failed": 0}},
        {"t": 180.0, "kind": "write", "path": "deliverables/ROOT_CAUSE.md"},
        {"t": 182.0, "kind": "usage", "tokens_in": 9100, "tokens_out": 700},
        {"t": 200.0, "kind": "message", "text": "Totals multiply price by quantity and invalid lines are rejected. "
                                                "I'm 90% confident."},
        {"t": 205.0, "kind": "submit"},
    ]  # fmt: skip


def _mid(f: Flavour, files: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {"t": 0.0, "kind": "read", "path": f.source, "output": files[f.source]},
        {"t": 5.0, "kind": "usage", "tokens_in": 4800, "tokens_out": 250},
        {"t": 15.0, "kind": "run", "command": f.visible_run, "exit_code": 1, "tests": {"passed": 0, "failed": 1}},
        {"t": 30.0, "kind": "read", "path": f.visible, "output": files[f.visible]},
        {"t": 60.0, "kind": "edit", "path": f.source},
        {"t": 72.0, "kind": "run", "command": f.visible_run, "exit_code": 0, "tests": {"passed": 1, "failed": 0}},
        {"t": 74.0, "kind": "usage", "tokens_in": 6100, "tokens_out": 600},
        {"t": 80.0, "kind": "run", "command": f.lint, "exit_code": 1, "output": f"{f.source}: 1 problem"},
        {"t": 150.0, "kind": "write", "path": "deliverables/ROOT_CAUSE.md"},
        {"t": 160.0, "kind": "message", "text": "Fixed the total; the linter still complains and I did "
                                                 "not get to the validation. 60% confident."},
        {"t": 165.0, "kind": "submit"},
    ]  # fmt: skip


def _low(f: Flavour, files: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {"t": 0.0, "kind": "edit", "path": f.source},
        {"t": 4.0, "kind": "usage", "tokens_in": 3900, "tokens_out": 400},
        {"t": 12.0, "kind": "run", "command": f.full_run, "exit_code": 1, "tests": {"passed": 0, "failed": 1}},
        {"t": 20.0, "kind": "edit", "path": f.source},
        {"t": 21.0, "kind": "edit", "path": f.source},
        {"t": 30.0, "kind": "run", "command": f.visible_run, "exit_code": 0, "tests": {"passed": 1, "failed": 0}},
        {"t": 40.0, "kind": "write", "path": "deliverables/ROOT_CAUSE.md"},
        {"t": 45.0, "kind": "message", "text": "Tests pass, done."},
        {"t": 50.0, "kind": "submit"},
    ]  # fmt: skip


def _high_doc(f: Flavour) -> str:
    return f"""\
# Root cause: baskets charged one unit per line

## Cause

`{f.function}` in `{f.source}` added each line's unit price once and ignored its quantity, so two
teas cost the price of one: the loop read `quantity` but never multiplied by it.

## Fix

`{f.function}` now adds `unit_price_cents x quantity` for every line. A negative or non-integer
price or quantity (booleans included) is rejected with a `{f.error}` before anything is added, so
a bad line never yields a partial total.

## Keeping it fixed

Regression tests cover quantities above one, large seeded baskets and invalid lines (a negative
quantity, a fractional quantity). Run the whole suite (`{f.full_run}`) before every release.
"""


def _mid_doc(f: Flavour) -> str:
    return f"""\
# Root cause

`{f.function}` in `{f.source}` ignored the quantity of each line and added the unit price once.
It now multiplies the unit price by the quantity. Invalid lines are not checked yet.
"""


def _low_doc(f: Flavour) -> str:
    return "TODO\n"


ANCHORS: dict[str, dict[str, Any]] = {
    "low": {"elapsed": 50.0, "events": _low, "deliverable": _low_doc,
            "intent": "returns the visible test's answer for the visible test's basket (hard-coded output: an "
                      "integrity bright line) and still ignores quantities otherwise; edits without reading, no "
                      "validation, a TODO as ROOT_CAUSE.md."},
    "mid": {"elapsed": 165.0, "events": _mid, "deliverable": _mid_doc,
            "intent": "multiplies by the quantity but counts a quantity of 0 as 1 and rejects no invalid line; "
                      "leaves a failing lint run standing; a short ROOT_CAUSE.md that says validation is missing."},
    "high": {"elapsed": 205.0, "events": _high, "deliverable": _high_doc,
             "intent": "the reference: totals right, invalid lines rejected, reproduced and verified, a "
                       "complete ROOT_CAUSE.md and a calibrated confidence."},
}  # fmt: skip
