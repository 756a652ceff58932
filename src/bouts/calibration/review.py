"""The review queue (SPEC §3): judge disagreements escalate 1 statistical flag → 2 rubric review →
3 human arbitration, and every step is recorded. Pure: items in, new items out; the caller passes
who and when (no clock here) and stores the result (:mod:`bouts.calibration.store`).

An item's ``history`` is append-only: every transition returns a new item whose history is the old
one plus one event. A *decision* records who, when, why and the score before and after; deciding
again after an appeal keeps the earlier decisions (the appeal trail). The leaderboard's current
score is the latest decision's ``after``, else the scorecard's own final score.

    open(level 1) ──escalate──▶ open(2) ──escalate──▶ open(3)
       │ decide                  │ decide               │ decide
       ▼                         ▼                      ▼
    decided ──appeal──▶ open(level + 1, at most 3) ──decide──▶ decided ...

An integrity bright line (SPEC §2: it caps the final at 14) opens an item too. A reviewer who upholds
it decides at the capped score; one who overturns it re-scores the submission without it
(``ScoreConfig.overturned``) and :func:`overturn` records the re-score's final as the decision.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.errors import InputError
from bouts.models.scorecard import Scorecard
from bouts.scoring.review import ESCALATION_LEVELS, GRAY_FLAG

REVIEW_SCHEMA = "bouts.review/1"
QUEUED_FLAGS: Mapping[str, int] = {
    "judge_divergence": 1, "human_review": 1, "llm_answer_unusable": 1, "integrity_bright_line": 1,
    "tampering": 1, "judge_error": 1, "judge_unavailable": 1, "provisional": 1, GRAY_FLAG: 2,
}  # fmt: skip
"""Flags that open a review item, with the level it opens at (a scorecard's own ``level`` on a flag
wins, and any flag that carries a level opens one): the four judges more than 40 apart (SPEC §3); a
code-quality panel that could not agree (``human_review``); an LLM judge whose answers stayed
malformed or refused; an integrity bright line (SPEC §2: capped at 14 until a reviewer upholds or
overturns it); a voided test run; a judge that failed, on the submission's content or for the
platform; a provisional scorecard (SPEC §6: a person sees it until a re-score completes it); and a
gray integrity instance beside a high strategy score, which opens at level 2 (rubric review): the gap is
the rubric's question, not a statistical one."""
OUTCOMES: Mapping[str, str] = {
    "both_valid": "both judges' readings are valid",
    "rubric_fixed": "the rubric was ambiguous and is fixed",
    "judge_bug": "a judge has a bug",
}
"""What a level-3 (human arbitration) decision found, one of three (seed 002)."""
Outcome = Literal["both_valid", "rubric_fixed", "judge_bug"]
MAX_LEVEL = max(ESCALATION_LEVELS)
Status = Literal["open", "decided"]
EventKind = Literal["opened", "escalated", "decided", "appealed"]


class ReviewError(InputError):
    """A transition the review state machine does not allow (names the item)."""


class ReviewEvent(BaseModel):
    """One step of an item's history."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: EventKind
    actor: str = Field(min_length=1)
    """Who: a person, or the tool that opened the item (``bouts stats``)."""
    at: datetime
    reason: str = Field(min_length=1)
    level: int = Field(ge=1, le=MAX_LEVEL)
    """The escalation level after this event."""
    before: float | None = None
    """Decisions only: the current score before the decision."""
    after: float | None = Field(None, ge=0, le=100)
    """Decisions only: the score decided."""
    outcome: Outcome | None = None
    """Level-3 decisions only (human arbitration): both valid, rubric fixed, or judge bug."""


class ReviewItem(BaseModel):
    """One submission under review."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: str = Field(REVIEW_SCHEMA, alias="schema")
    id: str
    challenge: str
    agent: str
    iteration: int
    submission_hash: str
    original: float | None
    """The scorecard's final score when the item was opened."""
    judges: dict[str, float]
    """The four judges' scores on the scorecard (objective, process, strategy, integrity)."""
    flag: str
    """The flag's message: which judges diverged and by how much."""
    bright_lines: tuple[str, ...] = ()
    """The scorecard's integrity bright lines under review (what :func:`overturn` scores without)."""
    history: tuple[ReviewEvent, ...]

    @property
    def level(self) -> int:
        return self.history[-1].level

    @property
    def status(self) -> Status:
        return "decided" if self.history[-1].kind == "decided" else "open"

    @property
    def version(self) -> int:
        """History length: what a store compares for optimistic concurrency."""
        return len(self.history)

    @property
    def level_name(self) -> str:
        return ESCALATION_LEVELS[self.level]


def item_id(card: Scorecard) -> str:
    return f"{card.challenge}--{card.agent}--{card.iteration}--{card.reproducibility.submission_hash[:12]}"


def open_item(card: Scorecard, *, actor: str, at: datetime) -> ReviewItem | None:
    """An item for a scorecard carrying a ``QUEUED_FLAGS`` flag or any flag with a level (one item for
    all of them, at the highest of their levels), else None."""
    flags = [f for f in card.flags if f.code in QUEUED_FLAGS or f.level is not None]
    if not flags:
        return None
    level = min(MAX_LEVEL, max(f.level or QUEUED_FLAGS[f.code] for f in flags))
    message = "; ".join(f.message if f.code == "judge_divergence" else f"{f.code}: {f.message}" for f in flags)
    judges = {k: c.score for k in ("objective", "process", "strategy", "integrity")
              if (c := card.components.get(k)) is not None and c.score is not None}
    event = ReviewEvent(kind="opened", actor=actor, at=at, reason=message, level=level)
    return ReviewItem(
        id=item_id(card), challenge=card.challenge, agent=card.agent, iteration=card.iteration,
        submission_hash=card.reproducibility.submission_hash, original=card.final, judges=judges,
        flag=message, bright_lines=tuple(card.bright_lines), history=(event,),
    )  # fmt: skip


def current_score(item: ReviewItem) -> float | None:
    """The latest decision's score, else the scorecard's."""
    return next((e.after for e in reversed(item.history) if e.kind == "decided"), item.original)


def _append(item: ReviewItem, event: ReviewEvent) -> ReviewItem:
    return item.model_copy(update={"history": (*item.history, event)})


def _need_open(item: ReviewItem, action: str) -> None:
    if item.status != "open":
        raise ReviewError(f"cannot {action}: the item is decided (appeal it first)", field=item.id)


def escalate(item: ReviewItem, *, actor: str, at: datetime, reason: str) -> ReviewItem:
    """Move an open item one level up (1 → 2 → 3)."""
    _need_open(item, "escalate")
    if item.level >= MAX_LEVEL:
        raise ReviewError(f"already at level {MAX_LEVEL} ({ESCALATION_LEVELS[MAX_LEVEL]})", field=item.id)
    return _append(item, ReviewEvent(kind="escalated", actor=actor, at=at, reason=reason, level=item.level + 1))


def _outcome(item: ReviewItem, outcome: str | None) -> Outcome | None:
    """A level-3 decision names its outcome (one of ``OUTCOMES``); a lower level's names none."""
    if item.level == MAX_LEVEL:
        if outcome not in OUTCOMES:
            given = f"'{outcome}'" if outcome else "none"
            raise ReviewError(f"a level-{MAX_LEVEL} ({ESCALATION_LEVELS[MAX_LEVEL]}) decision needs an outcome, one "
                              f"of {', '.join(OUTCOMES)} (got {given})", field=item.id)  # fmt: skip
        return outcome  # type: ignore[return-value]
    if outcome is not None:
        raise ReviewError(f"an outcome is recorded at level {MAX_LEVEL} only (this item is at level {item.level})",
                          field=item.id)  # fmt: skip
    return None


def decide(
    item: ReviewItem, *, actor: str, at: datetime, reason: str, score: float, outcome: str | None = None
) -> ReviewItem:
    """Decide an open item at its level: the score becomes the current score. At level 3 the decision
    names its ``outcome`` (``OUTCOMES``); below it, none."""
    _need_open(item, "decide")
    found = _outcome(item, outcome)
    return _append(item, ReviewEvent(
        kind="decided", actor=actor, at=at, reason=reason, level=item.level, before=current_score(item), after=score,
        outcome=found,
    ))  # fmt: skip


def overturn(
    item: ReviewItem, rescored: Scorecard, *, actor: str, at: datetime, reason: str, outcome: str | None = None
) -> ReviewItem:
    """Decide an open bright-line item by overturning it: ``rescored`` is the same submission scored
    without the item's bright lines (``ScoreConfig(overturned=item.bright_lines)``), and its final
    becomes the current score. Raises ``ReviewError`` when the item has no bright line, or when
    ``rescored`` is another submission or still carries one of them."""
    _need_open(item, "overturn")
    if not item.bright_lines:
        raise ReviewError("has no integrity bright line to overturn", field=item.id)
    same = (rescored.challenge, rescored.agent, rescored.iteration, rescored.reproducibility.submission_hash)
    if same != (item.challenge, item.agent, item.iteration, item.submission_hash):
        raise ReviewError("the re-score is of another submission", field=item.id)
    if kept := [b for b in item.bright_lines if b in rescored.bright_lines]:
        raise ReviewError(f"the re-score still carries the bright line(s) {'; '.join(kept)}", field=item.id)
    if rescored.final is None:
        raise ReviewError("the re-score has no final score", field=item.id)
    found = _outcome(item, outcome)
    why = f"overturned {'; '.join(item.bright_lines)}, re-scored without: {reason}"
    return _append(item, ReviewEvent(
        kind="decided", actor=actor, at=at, reason=why, level=item.level, before=current_score(item),
        after=rescored.final, outcome=found,
    ))  # fmt: skip


def appeal(item: ReviewItem, *, actor: str, at: datetime, reason: str) -> ReviewItem:
    """Reopen a decided item one level up (at most 3); its decisions stay in the history."""
    if item.status != "decided":
        raise ReviewError("cannot appeal: the item is not decided yet", field=item.id)
    level = min(MAX_LEVEL, item.level + 1)
    return _append(item, ReviewEvent(kind="appealed", actor=actor, at=at, reason=reason, level=level))


def collect(cards: Sequence[Scorecard], known: Collection[str], *, actor: str, at: datetime) -> list[ReviewItem]:
    """New level-1 items for flagged scorecards whose item is not already ``known``."""
    seen = set(known)
    items: list[ReviewItem] = []
    for card in cards:
        item = open_item(card, actor=actor, at=at)
        if item is not None and item.id not in seen:
            seen.add(item.id)
            items.append(item)
    return items
