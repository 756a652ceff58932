"""What the web pages show, computed from what the repository returns. Pure: records and scorecard
JSON in, plain data out; ``web.py`` fetches, the templates lay out. Nothing here scores: finals,
points and math are the stored scorecard's; statistics are ``bouts.calibration.stats``'s; anchor
checks are ``bouts.calibration.anchors.compare``'s."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bouts.calibration.anchors import TOLERANCE, compare
from bouts.calibration.review import ReviewItem, current_score
from bouts.calibration.spec import read_expected
from bouts.calibration.stats import DERIVED
from bouts.calibration.stats_report import Correlation, StatsReport
from bouts.errors import BoutsError
from bouts.loading.challenge import ANCHOR_LEVELS
from bouts.models.scorecard import Scorecard
from bouts.service.api import plots
from bouts.service.calibration import ANCHOR_AGENT, challenge_stats
from bouts.service.standings import Standing
from bouts.service.storage.records import ChallengeInfo, StoredScorecard, SubmissionInfo

FOUR_JUDGES = ("objective", "process", "strategy", "integrity")
SHAPES = {
    "one-shot": "a single attempt",
    "monotonic": "never lower than the attempt before",
    "regression": "a later attempt scored lower than the one before it",
    "last-jump": "flat (within 5 points), then a jump of 15 or more: trial and error",
}


def num(value: object, digits: int = 2) -> str:
    """A score for display: at most ``digits`` decimals, no trailing zeros; ``—`` for none."""
    if value is None or isinstance(value, bool):
        return "—" if value is None else str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return str(value)


def pval(p: float | None) -> str:
    """A p-value as ``bouts stats`` keeps it (rounded to 4 decimals): 0 is shown as < 0.0001."""
    if p is None:
        return "—"
    return "< 0.0001" if p == 0 else f"{p:.2g}"


# -- leaderboard -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Review:
    """A review decision on a scorecard: the score that stands instead of the scorecard's."""

    score: float | None
    original: float | None
    status: str
    level: int
    level_name: str
    history: list[dict[str, Any]]


def review_of(item: ReviewItem | None) -> Review | None:
    """The review that replaces a scorecard's final, if a decision was taken (else None)."""
    if item is None or not any(e.kind == "decided" for e in item.history):
        return None
    history = [e.model_dump(mode="json") for e in item.history]
    return Review(current_score(item), item.original, item.status, item.level, item.level_name, history)


@dataclass(frozen=True)
class Row:
    standing: Standing
    spark: plots.Spark
    shape_meaning: str
    review: Review | None


def leaderboard_rows(rows: Sequence[Standing], items: Sequence[ReviewItem]) -> list[Row]:
    by_attempt = {(i.agent, i.iteration): i for i in items}
    return [
        Row(s, plots.sparkline(s.history), SHAPES.get(s.shape, ""), review_of(by_attempt.get((s.agent, s.iterations))))
        for s in rows
    ]


# -- recorded runs -----------------------------------------------------------------------------
@dataclass(frozen=True)
class RunView:
    """An agent run the service ran and recorded: who ran it and what it spent (``run.json``)."""

    harness: str | None
    model: str | None
    """The name the operator gave the model (``BOUTS_AGENT_MODELS``) and the endpoint's model id."""
    requests: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    """None: the run's model has no price configured, or the run has not finished."""
    exit_status: str | None = None


def run_of(info: SubmissionInfo | None, card: Mapping[str, Any] | None = None) -> RunView | None:
    """The run behind a submission the service ran (``run_spec``), with its usage from the run's
    ``run.json``; for another recorded scorecard, the harness its provenance names; else None."""
    import json

    if info is not None and info.run_spec:
        spec = info.run_spec
        endpoint = spec.get("endpoint") or {}
        model = spec.get("model_name")
        if endpoint.get("model"):
            model = f"{model} ({endpoint['model']})"
        summary: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            summary = json.loads((Path(info.archive_path) / "run.json").read_text(encoding="utf-8"))
        usage = summary.get("usage") or {}
        priced = endpoint.get("price_in") is not None or endpoint.get("price_out") is not None
        return RunView(spec.get("harness"), model, usage.get("requests"), usage.get("tokens_in"),
                       usage.get("tokens_out"), usage.get("cost_usd") if priced else None,
                       summary.get("exit_status"))  # fmt: skip
    trajectory = (card or {}).get("trajectory") or {}
    if trajectory.get("source") == "recorded":
        return RunView(trajectory.get("harness"), None)
    return None


# -- scorecard ---------------------------------------------------------------------------------
def location(finding: Mapping[str, Any]) -> str:
    """Where a finding points: ``file:line``, ``file``, or the trajectory event."""
    file, line, event = finding.get("file"), finding.get("line"), finding.get("event")
    where = f"{file}:{line}" if file and line is not None else (file or "")
    if event is not None:
        where = f"{where}, trajectory event {event}" if where else f"trajectory event {event}"
    return where or "—"


@dataclass(frozen=True)
class ComponentView:
    name: str
    data: dict[str, Any]
    applied_differs: bool
    deducted: float
    """Sum of the points its findings took."""
    engine_weight: float | None = None
    """The card's engine weight for it (``weights``), shown where the component carries none (a
    composite card's components: the engine profile's math uses these)."""


@dataclass(frozen=True)
class CardView:
    card: dict[str, Any]
    components: list[ComponentView]
    points_total: float | None
    profiles: list[tuple[str, dict[str, Any]]]
    tests: dict[str, list[dict[str, Any]]]
    tests_passed: dict[str, int]
    review: Review | None
    item_id: str | None


def card_view(card: dict[str, Any], item: ReviewItem | None) -> CardView:
    """``card`` is already the caller's view (``bouts.service.views.scorecard_view``)."""
    comps = []
    for name, data in (card.get("components") or {}).items():
        weight, applied = data.get("weight"), data.get("effective_weight")
        deducted = sum(float(f.get("points") or 0) for f in data.get("findings") or [])
        engine = (card.get("weights") or {}).get(name)
        comps.append(ComponentView(name, data, applied is not None and weight != applied, deducted, engine))
    points = [c.data["points"] for c in comps if c.data.get("points") is not None]
    details = card.get("profile_details") or {}
    names = list(dict.fromkeys([*details, *(card.get("profiles") or {})]))
    profiles = [
        (n, details.get(n) or {"final": (card.get("profiles") or {}).get(n), "raw": None, "band": None,
                               "provisional": False, "missing": []})  # fmt: skip
        for n in names
    ]
    tests: dict[str, list[dict[str, Any]]] = {}
    for t in card.get("tests") or []:
        tests.setdefault(t.get("suite", "?"), []).append(t)
    passed = {s: sum(t.get("outcome") == "passed" for t in ts) for s, ts in tests.items()}
    return CardView(card, comps, round(sum(points), 6) if points else None, profiles, tests, passed,
                    review_of(item), review_item_id(card))  # fmt: skip


def review_item_id(card: Mapping[str, Any]) -> str | None:
    """The review item id of a scorecard (``bouts.calibration.review.item_id``), from its JSON."""
    try:
        sub_hash = str(card["reproducibility"]["submission_hash"])
        return f"{card['challenge']}--{card['agent']}--{card['iteration']}--{sub_hash[:12]}"
    except (KeyError, TypeError):
        return None


# -- calibration -------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorCheck:
    key: str
    expected: float
    actual: float | None
    ok: bool | None
    judges: list[str]

    @property
    def gap(self) -> float | None:
        return None if self.actual is None else round(self.actual - self.expected, 6)


@dataclass(frozen=True)
class AnchorView:
    level: str
    error: str | None = None
    checks: list[AnchorCheck] = field(default_factory=list)
    measured_id: str | None = None
    """The submission whose scorecard measured it, when one did."""
    measured_final: int | None = None
    same_version: bool = False
    plot: plots.AnchorPlot | None = None


@dataclass(frozen=True)
class CalibrationView:
    attempts: int
    unreadable: int
    anchor_runs: int
    report: StatsReport
    finals: plots.Histogram
    bands: list[tuple[str, int]]
    components: list[str]
    x: str | None
    y: str | None
    scatter: plots.Scatter | None
    pair: Correlation | None
    pair_note: str
    anchors: list[AnchorView]
    limited: int | None = None
    """The scorecard cap, when it was reached (only the newest were read)."""
    tolerance: float = TOLERANCE


BAND_ORDER = ("Elite", "Strong", "Competent", "Struggling", "Weak", "Failed")


def calibration_view(
    info: ChallengeInfo, stored: Sequence[StoredScorecard], *, x: str | None = None, y: str | None = None,
    limit: int | None = None,
) -> CalibrationView:
    """Statistics over the stored current scorecards of ``info`` (newest first, as
    ``Submissions.current_scorecards`` gives them); the anchors from its current snapshot."""
    report, picked = challenge_stats(info, stored)
    cards, runs = picked.cards, picked.runs
    finals = plots.histogram(plots.bins10([float(c.final) for _, c in runs if c.final is not None]))
    bands = sorted(report.bands.items(), key=lambda kv: BAND_ORDER.index(kv[0]) if kv[0] in BAND_ORDER else 99)
    names = [c.component for c in report.components]
    x, y = _pair(names, x, y)
    scatter, pair, note = None, None, ""
    if x and y:
        pts = [(c.components[x].score, c.components[y].score, f"{c.agent} #{c.iteration}", f"/submissions/{sid}")
               for sid, c in runs if _scored(c, x) and _scored(c, y)]  # fmt: skip
        scatter = plots.scatter(pts)  # type: ignore[arg-type]
        pair = next((r for r in report.correlations if {r.a, r.b} == {x, y}), None)
        if pair is None:
            note = (
                "one is computed from the other: their correlation is arithmetic, not agreement"
                if _derived(x, y)
                else "Pearson r needs at least 3 attempts with varying scores on both"
            )
    anchors = anchor_views(info, cards)
    limited = limit if limit is not None and len(stored) >= limit else None
    return CalibrationView(len(runs), picked.unreadable, len(cards) - len(runs), report, finals, bands, names, x, y,
                           scatter, pair, note, anchors, limited)  # fmt: skip


def _scored(card: Scorecard, name: str) -> bool:
    comp = card.components.get(name)
    return comp is not None and comp.score is not None


def _derived(a: str, b: str) -> bool:
    return b in DERIVED.get(a, ()) or a in DERIVED.get(b, ())


def _pair(names: Sequence[str], x: str | None, y: str | None) -> tuple[str | None, str | None]:
    """The two components to plot: the asked ones if known, else objective vs integrity (the SPEC's
    cheating signal), else the first two of the four judges present, else the first two."""
    if x in names and y in names and x != y:
        return x, y
    if "objective" in names and "integrity" in names:
        return "objective", "integrity"
    judged = [n for n in FOUR_JUDGES if n in names] or list(names)
    return (judged[0], judged[1]) if len(judged) >= 2 else (None, None)


def anchor_views(info: ChallengeInfo, cards: Sequence[tuple[str, Scorecard]]) -> list[AnchorView]:
    """Each anchor's expected scores (from the current snapshot) against the latest scorecard of
    the agent ``anchor-<level>``, preferring one scored on the current challenge version."""
    views = []
    root = Path(info.path) / "anchors"
    for level in ANCHOR_LEVELS:
        file = root / level / "expected.toml"
        if not file.is_file():
            continue
        try:
            expected = read_expected(file.read_text(encoding="utf-8"), shown=f"anchors/{level}/expected.toml")
        except (BoutsError, OSError, UnicodeDecodeError) as exc:
            views.append(AnchorView(level, error=str(exc)))
            continue
        mine = [(sid, c) for sid, c in cards if c.agent == ANCHOR_AGENT.format(level=level) and c.infra_error is None]
        same = [(sid, c) for sid, c in mine if c.reproducibility.challenge_hash == info.content_hash]
        measured = (same or mine or [None])[0]
        if measured is None:
            checks = [AnchorCheck(k, v, None, None, []) for k, v in expected.items()]
            sid, final = None, None
        else:
            sid, card = measured
            report, _ = compare(level, expected, card)
            by_key = {c.component: c for c in report.checks}
            checks = [
                AnchorCheck(k, v, by_key[k].actual, by_key[k].ok, by_key[k].judges) if k in by_key
                else AnchorCheck(k, v, None, False, [])
                for k, v in expected.items()
            ]  # fmt: skip
            final = card.final
        plot = plots.anchor_plot([(c.key, c.expected, c.actual, c.ok) for c in checks], tolerance=TOLERANCE)
        views.append(AnchorView(level, None, checks, sid, final, bool(measured and same), plot))
    return views
