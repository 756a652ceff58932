"""Anchor checks (SPEC §3): each judge lands within ±10 of the anchor's expected score.

An anchor's ``expected.toml`` holds ``[expected]`` scores keyed by scorecard component
(``static_tests``, ``process``...), by profile (``engine``, ``four-judge``, ``composite``), or
``final`` for the challenge profile's weighted total. :func:`compare` is pure;
:func:`check_anchors` scores the anchors through the injected ``score`` callable (the real
``bouts.pipeline.score`` in the CLI).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from bouts.calibration.report import AnchorReport, ComponentCheck, Problem
from bouts.calibration.spec import read_expected
from bouts.errors import BoutsError
from bouts.loading.challenge import ANCHOR_LEVELS
from bouts.models.challenge import Challenge
from bouts.models.scorecard import Scorecard

TOLERANCE = 10.0
ScoreAnchor = Callable[[Path], Scorecard]


def _p(level: str, message: str, file: str | None = None, field: str | None = None) -> Problem:
    return Problem(check="anchors", level=level, message=message, file=file, field=field)  # type: ignore[arg-type]


def _actual(card: Scorecard, key: str) -> tuple[float | None, list[str], bool]:
    """(score, judges that sat, known key)."""
    if key in card.components:
        c = card.components[key]
        return c.score, [j.judge for j in c.judges], True
    if key == "final":
        return (None if card.final is None else float(card.final)), [card.profile], True
    if key in card.profiles:
        v = card.profiles[key]
        return (None if v is None else float(v)), [key], True
    return None, [], False


def compare(level: str, expected: Mapping[str, float], card: Scorecard) -> tuple[AnchorReport, list[Problem]]:
    """Check one anchor's scorecard against its expected scores. Pure."""
    file = f"anchors/{level}/expected.toml"
    checks: list[ComponentCheck] = []
    problems: list[Problem] = []
    for key, want in expected.items():
        got, judges, known = _actual(card, key)
        if not known:
            problems.append(_p("error", f"anchor '{level}': no component or profile named '{key}' on the scorecard",
                               file, f"expected.{key}"))
            continue
        ok = got is not None and abs(got - want) <= TOLERANCE + 1e-9
        checks.append(ComponentCheck(component=key, expected=want, actual=got, judges=judges, ok=ok))
        who = f"judge {', '.join(judges)} ({key})" if judges and judges != [key] else key
        if got is None:
            problems.append(_p("error", f"anchor '{level}': {key} was not scored, expected {want:g}",
                               file, f"expected.{key}"))
        elif not ok:
            problems.append(_p("error", f"anchor '{level}': {who} scored {got:g}, expected {want:g} "
                                        f"(gap {got - want:+.2f}, tolerance ±{TOLERANCE:g})", file, f"expected.{key}"))
    return AnchorReport(level=level, final=card.final, checks=checks), problems


def order_problems(reports: list[AnchorReport]) -> list[Problem]:
    """The anchors' final scores should rise from low to mid to high. Pure."""
    finals = [(r.level, r.final) for r in reports if r.final is not None]
    return [
        _p("warning", f"anchor '{a}' ({fa}) does not score below anchor '{b}' ({fb})", f"anchors/{b}")
        for (a, fa), (b, fb) in zip(finals, finals[1:], strict=False)
        if fa is not None and fb is not None and fa >= fb
    ]


def check_anchors(challenge: Challenge, score: ScoreAnchor) -> tuple[list[AnchorReport], list[Problem]]:
    """Read each anchor's expected scores, score it, compare. The I/O edge."""
    reports: list[AnchorReport] = []
    problems: list[Problem] = []
    for level in ANCHOR_LEVELS:
        path = challenge.anchors.get(level)
        exp_path = path / "expected.toml" if path else None
        if path is None or exp_path is None or not exp_path.is_file():
            continue  # reported by the spec checks
        rel = f"anchors/{level}/expected.toml"
        try:
            expected = read_expected(exp_path.read_text(encoding="utf-8"), shown=rel)
            card = score(path)
        except BoutsError as e:
            problems.append(_p("error", f"anchor '{level}': {e.message}", e.file or f"anchors/{level}", e.field))
            continue
        if card.infra_error:
            msg = f"anchor '{level}': the sandbox failed: {card.infra_error}"
            problems.append(_p("error", msg, f"anchors/{level}"))
            continue
        report, found = compare(level, expected, card)
        reports.append(report)
        problems += found
    return reports, problems + order_problems(reports)
