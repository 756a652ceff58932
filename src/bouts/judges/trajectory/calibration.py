"""The agent's final stated confidence (SPEC §2 CalibrationAdjustment), read from its own words.

Two sources: the agent's messages in the trajectory, and the markdown documents it delivered
(``deliverables/``). Only the agent's own words count: never user, system or tool text, and quoted
text is removed first (in messages ``"..."``, ``“...”``, backticks, code blocks and ``>`` quotes; in
deliverables also fenced and indented code, ``>`` blocks and HTML comments): an agent quoting "I'm
not sure" from an issue is not unsure.

Precedence: the latest statement overall. A message is dated by its event index; a deliverable by the
last trajectory event that wrote it, or after the whole trajectory when none did (deliverables are
written at the end). docs/trajectory-judges.md#calibration has the rules and the word→probability table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bouts.models.trajectory import Event
from bouts.models.view import SubmissionView
from bouts.scoring.adjustments import Confidence

from ._common import CHANGE_KINDS, changes, is_assistant, same_file

CONFIDENT_AT = 0.7
"""A stated probability at or above this is "confident"; below it, "unsure"."""

WORD_PROBABILITY: dict[str, float] = {
    "strongly confident": 0.9,  # "I'm very/highly/completely/absolutely/extremely sure", "with high confidence"
    "confident": 0.8,  # "I'm confident/certain/sure", "confidence: high"
    "fairly confident": 0.7,  # "I'm fairly/reasonably/pretty/quite confident"
    "not entirely sure": 0.6,  # "not entirely/completely/fully/totally/100% sure", "confidence: medium"
    "not sure": 0.5,  # "not sure", "unsure", "uncertain", "I doubt", "not convinced", hedges
    "low confidence": 0.3,  # "confidence: low"
}
"""Probability of a statement made in words (no number), for the Brier score. The numbers: a coin toss
for "not sure" (the agent says it does not know), 0.8 for a plain "confident", one step of 0.1 per
qualifier either way; every "confident" form stays at or above CONFIDENT_AT, every "unsure" one below."""

DELIVERABLE_SUFFIXES = (".md", ".markdown")
MAX_DELIVERABLES = 50
"""Markdown files read from ``deliverables/`` (sorted by path); the rest are ignored."""

_QUOTED = re.compile(r"```.*?```|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|^\s*>.*$", re.S | re.M)
_INLINE_QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_PERCENT = re.compile(
    r"\b(?:i\s*'?\s*a?m|i\s+am|i'm)\s+(?:about\s+|around\s+|roughly\s+|~)?(\d{1,3})\s*%\s*(?:confident|sure|certain)"
    r"|\bconfidence(?:\s+level)?\s*(?:is|:|of|=|-)?\s*(?:about\s+|~)?(\d{1,3})\s*%"
    r"|(?<!not\s)(?<![\w.])(\d{1,3})\s*%\s+(?:confident|sure|certain|confidence(?!\s+(?:interval|bound|level)))\b",
    re.I,
)
_LABEL = re.compile(r"\bconfidence(?:\s+level)?\s*(?::|is|=|-)\s*(high|medium|moderate|low)\b", re.I)
_LABEL_PROBABILITY = {"high": "confident", "medium": "not entirely sure", "moderate": "not entirely sure",
                      "low": "low confidence"}  # fmt: skip
_UNSURE = re.compile(
    r"\b(?:not\s+(?P<partly>entirely\s+|completely\s+|fully\s+|totally\s+|100%\s+)?(?:very\s+|too\s+)?"
    r"(?:sure|certain|confident)"
    r"|unsure|uncertain|i\s+doubt|not\s+convinced|can(?:no|')t\s+be\s+(?:sure|certain))\b",
    re.I,
)
_CONFIDENT = re.compile(
    r"\b(?:i\s*'?\s*a?m|i\s+am|i'm|we\s*'?re|we\s+are)\s+(?:now\s+)?"
    r"(?:(?P<degree>fairly|quite|very|highly|reasonably|pretty|completely|absolutely|extremely|fully|totally)\s+)?"
    r"(?:confident|certain|sure)\b"
    r"|\bwith\s+(?:high|great)\s+confidence\b",
    re.I,
)
_STRONG = frozenset({"very", "highly", "completely", "absolutely", "extremely", "fully", "totally"})
_HEDGE = re.compile(r"\b(?:might|may)\s+not\b", re.I)


@dataclass(frozen=True)
class Statement:
    """A confidence statement the agent made, with its evidence: an event index (a message) or a
    deliverable's ``file`` (``deliverables/<path>``) and 1-based ``line``."""

    confidence: Confidence
    probability: float
    """The stated number, or WORD_PROBABILITY for a statement made in words."""
    event: int | None
    sentence: str
    file: str | None = None
    line: int | None = None

    @property
    def source(self) -> str:
        """Where it was stated: ``trajectory event 18`` or ``deliverables/ROOT_CAUSE.md:12``."""
        return f"{self.file}:{self.line}" if self.file else f"trajectory event {self.event}"


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


def _word(key: str) -> tuple[Confidence, float]:
    p = WORD_PROBABILITY[key]
    return ("confident" if p >= CONFIDENT_AT else "unsure"), p


def classify_sentence(sentence: str, hedges_count: bool = True) -> tuple[Confidence, float] | None:
    """The confidence one sentence states, if any. A number decides; then "not sure" beats "sure"."""
    pct = _PERCENT.search(sentence)
    if pct:
        p = min(100, int(next(g for g in pct.groups() if g))) / 100
        return ("confident" if p >= CONFIDENT_AT else "unsure"), p
    label = _LABEL.search(sentence)
    if label:
        return _word(_LABEL_PROBABILITY[label.group(1).lower()])
    unsure = _UNSURE.search(sentence)
    if unsure:
        return _word("not entirely sure" if unsure.group("partly") else "not sure")
    sure = _CONFIDENT.search(sentence)
    if sure:
        degree = (sure.group("degree") or "").lower()
        if degree in _STRONG or not sure.group(0).lower().startswith(("i", "we")):  # "with high confidence"
            return _word("strongly confident")
        return _word("fairly confident" if degree else "confident")
    if hedges_count and _HEDGE.search(sentence):
        return _word("not sure")
    return None


def final_statement(events: Sequence[Event]) -> Statement | None:
    """The last confidence statement of the agent's own messages, or None when it never stated one."""
    last_change = max((i for i, e in enumerate(events) if changes(e)), default=-1)
    for i in range(len(events) - 1, -1, -1):  # the last one: read from the end, stop at the first found
        e = events[i]
        if not is_assistant(e) or not e.text:
            continue
        for sentence in reversed(_SENTENCE.split(_unquoted(e.text))):
            hit = classify_sentence(sentence, hedges_count=i > last_change)
            if hit:
                return Statement(hit[0], hit[1], i, sentence.strip()[:200])
    return None


# --- deliverables ---------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BLOCK_START = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|\|)")
_DELIVERABLE_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_QUOTE_LINE = re.compile(r"^\s*>")
_EMPHASIS = re.compile(r"\*\*|__|(?<=\w)[*_](?!\w)|(?<!\w)[*_](?=\w)")


def _prose_lines(text: str) -> list[str]:
    """The document's lines with everything that is not the agent's own prose blanked: fenced code,
    ``>`` quote lines, HTML comments, inline code and quotations. Line numbers are kept."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            out.append("")
        elif opening:
            fence = opening.group(1)
            out.append("")
        elif _QUOTE_LINE.match(line):
            out.append("")
        else:
            out.append(_EMPHASIS.sub(" ", _INLINE_QUOTED.sub(lambda m: " " * len(m.group()), line)))
    return out


def _paragraphs(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each paragraph; a heading, list item or table row starts a new one."""
    start, buf = 0, []
    for n, line in enumerate(lines, 1):
        if not line.strip() or _BLOCK_START.match(line):
            if buf:
                yield start, "\n".join(buf)
            start, buf = n, ([line] if line.strip() else [])
            continue
        if not buf:
            start = n
        buf.append(line)
    if buf:
        yield start, "\n".join(buf)


def statements_in(text: str, file: str) -> list[Statement]:
    """Every confidence statement in one markdown document, in order. Hedges ("may not") never count
    here: in a write-up they describe the bug, not the agent's doubt."""
    found = []
    for first, para in _paragraphs(_prose_lines(text)):
        offset = 0
        for sentence in _DELIVERABLE_SENTENCE.split(para):
            at = para.index(sentence, offset)
            offset = at + len(sentence)
            hit = classify_sentence(re.sub(r"[\n|]", " ", sentence), hedges_count=False)
            if hit:
                line = first + para.count("\n", 0, at)
                found.append(Statement(hit[0], hit[1], None, " ".join(sentence.split())[:200], file, line))
    return found


def deliverable_statements(view: SubmissionView) -> list[Statement]:
    """Every statement in the submission's markdown deliverables, by file path then line."""
    if view.deliverables is None:
        return []
    found: list[Statement] = []
    rels = [f.rel for f in view.deliverables if f.rel.lower().endswith(DELIVERABLE_SUFFIXES)]
    for rel in rels[:MAX_DELIVERABLES]:
        text, _ = view.document(rel)  # no link, size-capped
        if text is not None:
            found += statements_in(text, f"deliverables/{rel}")
    return found


def written_at(events: Sequence[Event], file: str) -> int:
    """When a deliverable was written: the index of the last event that wrote it (an accepted edit or
    write of it, or a mutating command naming it), else ``len(events)``: after the whole trajectory."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e.kind in CHANGE_KINDS and e.path and changes(e) and same_file(e.path, file):
            return i
        if e.kind == "run" and e.command and file in e.command and changes(e):
            return i
    return len(events)


def latest_statement(events: Sequence[Event], view: SubmissionView | None) -> Statement | None:
    """The agent's final statement: the latest one overall, messages dated by event index and
    deliverables by ``written_at``; within one deliverable the last line wins, and deliverables
    written at the same time are taken in path order (the last path wins)."""
    candidates: list[tuple[tuple[int, int, str, int], Statement]] = []
    said = final_statement(events)
    if said is not None and said.event is not None:
        candidates.append(((said.event, 0, "", 0), said))
    for s in deliverable_statements(view) if view is not None else ():
        file, line = s.file or "", s.line or 0
        candidates.append(((written_at(events, file), 1, file, line), s))
    return max(candidates, key=lambda c: c[0])[1] if candidates else None
