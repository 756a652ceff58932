"""Anchor checks (SPEC §3): each judge lands within ±10 of the anchor's expected score.

An anchor's ``expected.toml`` holds ``[expected]`` scores keyed by scorecard component
(``static_tests``, ``process``...), by profile (``engine``, ``four-judge``, ``composite``), or
``final`` for the challenge profile's weighted total. :func:`compare` is pure;
:func:`check_anchors` scores the anchors through the injected ``score`` callable (the real
``bouts.pipeline.score`` in the CLI).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path

from bouts.calibration.report import AnchorReport, ComponentCheck, Problem
from bouts.calibration.spec import read_expected
from bouts.errors import BoutsError, InputError
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


def measured(card: Scorecard) -> dict[str, float | None]:
    """Every component of the scorecard and ``final``, as measured. Pure."""
    out: dict[str, float | None] = {k: c.score for k, c in card.components.items()}
    out["final"] = None if card.final is None else float(card.final)
    return out


def _math(card: Scorecard, key: str) -> list[str]:
    if key in card.components:
        return list(card.components[key].math)
    return [line for line in card.math if line.startswith(f"{card.profile}")][-3:] if key == "final" else []


def compare(level: str, expected: Mapping[str, float], card: Scorecard) -> tuple[AnchorReport, list[Problem]]:
    """Check one anchor's scorecard against its expected scores. Pure."""
    file = f"anchors/{level}/expected.toml"
    checks: list[ComponentCheck] = []
    problems: list[Problem] = []
    math: dict[str, list[str]] = {}
    for key, want in expected.items():
        got, judges, known = _actual(card, key)
        if not known:
            near = difflib.get_close_matches(key, [*card.components, *card.profiles, "final"], n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            problems.append(_p("error", f"anchor '{level}': no component or profile named '{key}' on the "
                                        f"scorecard{hint}", file, f"expected.{key}"))  # fmt: skip
            continue
        ok = got is not None and abs(got - want) <= TOLERANCE + 1e-9
        checks.append(ComponentCheck(component=key, expected=want, actual=got, judges=judges, ok=ok))
        who = f"judge {', '.join(judges)} ({key})" if judges and judges != [key] else key
        if got is None:
            problems.append(_p("error", f"anchor '{level}': {key} was not scored, expected {want:g}",
                               file, f"expected.{key}"))
        elif not ok:
            lines = _math(card, key)
            math[key] = lines
            why = f"; its math: {lines[-1]}" if lines else ""
            problems.append(_p("error", f"anchor '{level}': {who} scored {got:g}, expected {want:g} "
                                        f"(gap {got - want:+.2f}, tolerance ±{TOLERANCE:g}){why}", file,
                               f"expected.{key}"))  # fmt: skip
    report = AnchorReport(level=level, final=card.final, band=card.band, checks=checks, measured=measured(card),
                          math=math)  # fmt: skip
    return report, problems


ORDERED = ("objective", "process", "strategy", "integrity", "recovery", "efficiency")
"""The components an order break is explained by (what the composite profile is made of)."""


def order_breaks(reports: list[AnchorReport]) -> list[tuple[str, str, list[str]]]:
    """``(lower level, higher level, components the lower one scores more on)`` for each pair of
    neighbouring anchors whose finals are not in order. Pure."""
    out = []
    finals = [r for r in reports if r.final is not None]
    for a, b in zip(finals, finals[1:], strict=False):
        if a.final is not None and b.final is not None and a.final >= b.final:
            ahead = [k for k in ORDERED if (a.measured.get(k) or 0.0) > (b.measured.get(k) or 0.0) + 1e-9
                     and a.measured.get(k) is not None and b.measured.get(k) is not None]  # fmt: skip
            out.append((a.level, b.level, ahead))
    return out


def order_problems(reports: list[AnchorReport]) -> list[Problem]:
    """The anchors' final scores should rise from low to mid to high; the components that break the
    order are named with both scores. Pure."""
    by_level = {r.level: r for r in reports}
    out = []
    for a, b, ahead in order_breaks(reports):
        ra, rb = by_level[a], by_level[b]
        parts = ", ".join(f"{k} {ra.measured[k]:g} vs {rb.measured[k]:g}" for k in ahead)
        why = f": '{a}' scores more on {parts} (math of each under anchors/{b})" if parts else ""
        out.append(_p("warning", f"anchor '{a}' ({ra.final}) does not score below anchor '{b}' ({rb.final}){why}",
                      f"anchors/{b}"))  # fmt: skip
    return out


DEFAULT_BANDS: dict[str, tuple[int, int]] = {"low": (0, 34), "mid": (55, 89), "high": (75, 100)}
"""Where each anchor's final should land for the anchors to span the bands: low at Weak or below
(≤ 34), mid Competent to Strong (55-89), high Strong or above (≥ 75). ``bouts check --bands``."""


def parse_bands(text: str) -> dict[str, tuple[int, int]]:
    """``low=0-34,mid=55-89`` over :data:`DEFAULT_BANDS`. Raises ``InputError`` naming ``bands``."""
    out = dict(DEFAULT_BANDS)
    for part in filter(None, (p.strip() for p in text.split(","))):
        level, _, span = part.partition("=")
        lo, _, hi = span.partition("-")
        try:
            lo_i, hi_i = int(lo), int(hi)
        except ValueError:
            lo_i, hi_i = -1, -1
        if level.strip() not in ANCHOR_LEVELS or not 0 <= lo_i <= hi_i <= 100:
            raise InputError(f"'{part}' is not LEVEL=LOW-HIGH (a level of {', '.join(ANCHOR_LEVELS)}, 0 <= LOW <= "
                             "HIGH <= 100)", field="bands")  # fmt: skip
        out[level.strip()] = (lo_i, hi_i)
    return out


def band_problems(reports: list[AnchorReport], bands: Mapping[str, tuple[int, int]] = DEFAULT_BANDS) -> list[Problem]:
    """A warning per anchor whose final lies outside its range: anchors that do not span the bands
    cannot tell a weak submission from a strong one. Pure."""
    out = []
    for r in reports:
        span = bands.get(r.level)
        if span is None or r.final is None or span[0] <= r.final <= span[1]:
            continue
        low = sorted(((k, v) for k, v in r.measured.items() if v is not None and k in ORDERED), key=lambda kv: -kv[1])
        top = ", ".join(f"{k} {v:g}" for k, v in low[:3])
        out.append(_p("warning", f"anchor '{r.level}' scores {r.final} ({r.band}), outside its range "
                                 f"{span[0]}-{span[1]}: the anchors do not span the bands (highest: {top})",
                      f"anchors/{r.level}", "final"))  # fmt: skip
    return out


def check_anchors(
    challenge: Challenge, score: ScoreAnchor, bands: Mapping[str, tuple[int, int]] = DEFAULT_BANDS
) -> tuple[list[AnchorReport], list[Problem]]:
    """Read each anchor's expected scores, score it, compare. The I/O edge. An anchor whose
    ``expected.toml`` holds no score yet is scored all the same (its measured scores are reported)."""
    reports: list[AnchorReport] = []
    problems: list[Problem] = []
    cards: dict[str, Scorecard] = {}
    for level in ANCHOR_LEVELS:
        path = challenge.anchors.get(level)
        exp_path = path / "expected.toml" if path else None
        if path is None or exp_path is None or not exp_path.is_file():
            continue  # reported by the spec checks
        rel = f"anchors/{level}/expected.toml"
        try:
            expected = read_expected(exp_path.read_text(encoding="utf-8"), shown=rel, allow_empty=True)
            card = score(path)
        except BoutsError as e:
            problems.append(_p("error", f"anchor '{level}': {e.message}", e.file or f"anchors/{level}", e.field))
            continue
        if card.infra_error:
            msg = f"anchor '{level}': the sandbox failed: {card.infra_error}"
            problems.append(_p("error", msg, f"anchors/{level}"))
            continue
        if not expected:
            problems.append(_p("error", f"anchor '{level}': no expected scores yet: write your judgement of "
                                        "this anchor in [expected] (at least final; the measured scores are "
                                        "shown beside it)", rel, "expected"))  # fmt: skip
        report, found = compare(level, expected, card)
        reports.append(report)
        cards[level] = card
        problems += found
    for _, b, ahead in order_breaks(reports):
        i = next(i for i, r in enumerate(reports) if r.level == b)
        extra = {k: _math(cards[b], k) for k in ahead}
        reports[i] = reports[i].model_copy(update={"math": {**reports[i].math, **extra}})
    return reports, problems + order_problems(reports) + band_problems(reports, bands)
