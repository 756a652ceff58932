"""The agent's final stated confidence (SPEC §2 CalibrationAdjustment), read from its own messages.

Only assistant messages count (never user, system or tool text), and quoted text inside them
(``"..."``, ``“...”``, backticks, code blocks, ``>`` quotes) is removed first: an agent quoting
"I'm not sure" from an issue is not unsure. The last statement wins. The weak hedges "might not" /
"may not" count only after the agent's last change, where they describe the result rather than a
hypothesis under investigation. docs/trajectory-judges.md#calibration has the table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bouts.models.trajectory import Event
from bouts.scoring.adjustments import Confidence

from ._common import changes, is_assistant

CONFIDENT_AT = 0.7
"""A stated probability at or above this is "confident"; below it, "unsure"."""
DEFAULT_PROBABILITY = {"confident": 0.8, "unsure": 0.4}
"""Probability assumed for a statement without a number (used only for the Brier score)."""

_QUOTED = re.compile(r"```.*?```|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|^\s*>.*$", re.S | re.M)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_PERCENT = re.compile(
    r"\b(?:i\s*'?\s*a?m|i\s+am|i'm)\s+(?:about\s+|around\s+|roughly\s+|~)?(\d{1,3})\s*%\s*(?:confident|sure|certain)"
    r"|\bconfidence(?:\s+level)?\s*(?:is|:|of)?\s*(?:about\s+|~)?(\d{1,3})\s*%",
    re.I,
)
_UNSURE = re.compile(
    r"\b(?:not\s+(?:entirely\s+|completely\s+|fully\s+|totally\s+|100%\s+|very\s+|too\s+)?(?:sure|certain|confident)"
    r"|unsure|uncertain|i\s+doubt|not\s+convinced|can(?:no|')t\s+be\s+(?:sure|certain))\b",
    re.I,
)
_CONFIDENT = re.compile(
    r"\b(?:i\s*'?\s*a?m|i\s+am|i'm|we\s*'?re|we\s+are)\s+(?:now\s+)?(?:fairly\s+|quite\s+|very\s+|highly\s+|"
    r"reasonably\s+|pretty\s+|completely\s+|absolutely\s+)?(?:confident|certain|sure)\b"
    r"|\bwith\s+high\s+confidence\b",
    re.I,
)
_HEDGE = re.compile(r"\b(?:might|may)\s+not\b", re.I)


@dataclass(frozen=True)
class Statement:
    """A confidence statement the agent made, with its evidence."""

    confidence: Confidence
    probability: float
    """The stated probability, or DEFAULT_PROBABILITY for a statement without a number."""
    event: int
    sentence: str


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


def classify_sentence(sentence: str, hedges_count: bool = True) -> tuple[Confidence, float] | None:
    """The confidence one sentence states, if any. A number decides; then "not sure" beats "sure"."""
    pct = _PERCENT.search(sentence)
    if pct:
        p = min(100, int(pct.group(1) or pct.group(2))) / 100
        return ("confident" if p >= CONFIDENT_AT else "unsure"), p
    if _UNSURE.search(sentence):
        return "unsure", DEFAULT_PROBABILITY["unsure"]
    if _CONFIDENT.search(sentence):
        return "confident", DEFAULT_PROBABILITY["confident"]
    if hedges_count and _HEDGE.search(sentence):
        return "unsure", DEFAULT_PROBABILITY["unsure"]
    return None


def final_statement(events: Sequence[Event]) -> Statement | None:
    """The last confidence statement of the agent's own messages, or None when it never stated one."""
    last_change = max((i for i, e in enumerate(events) if changes(e)), default=-1)
    found: Statement | None = None
    for i, e in enumerate(events):
        if not is_assistant(e) or not e.text:
            continue
        for sentence in _SENTENCE.split(_unquoted(e.text)):
            hit = classify_sentence(sentence, hedges_count=i > last_change)
            if hit:
                found = Statement(hit[0], hit[1], i, sentence.strip()[:200])
    return found
