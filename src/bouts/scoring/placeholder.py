"""Is a written deliverable a placeholder, and which of its lines are follow-up markers? Pure.

SPEC §1: a deliverable that *is* a placeholder (no substance besides ``TODO``/``TBD`` lines) scores
0; a real document with a follow-up ``TODO`` line only loses completeness points
(:func:`follow_up_lines`, charged by the deliverables judges). See docs/scoring.md.
"""

from __future__ import annotations

import re

MIN_WORDS = 15
# A marker line is the marker alone, or the marker followed by ':' / '-' / ')' / ']' and a note
# ("TODO: write this"). "TODO in the retry path ..." wrapped onto a new line is prose, not a marker.
_PLACEHOLDER_LINE = re.compile(r"^\W*(todo|tbd|fixme|xxx|coming soon|to be written)\s*($|[:\-\u2013\u2014)\].!])", re.I)
_WORD = re.compile(r"[^\W_]{2,}")
_FILLER = re.compile(r"lorem ipsum", re.I)
FOLLOW_UP_COST = 20.0
"""Completeness points (of 100) a real document loses per follow-up marker line, floor 0."""


def _body(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) of every non-blank line that is not a heading."""
    return [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith("#")]


def _marker(line: str) -> bool:
    return bool(_PLACEHOLDER_LINE.match(line) or _FILLER.search(line))


def placeholder_reason(text: str) -> str | None:
    """Why ``text`` is a placeholder, or None when it is a real document.

    A placeholder has no substance besides its placeholder lines: once headings and marker lines
    (``TODO``, ``TODO: explain``, ``- TBD``, ``lorem ipsum``...) are set aside, fewer than 15 words
    remain. A real document may mention a TODO in its prose, or carry a follow-up marker line
    (``- TODO: add a load test``): it is not a placeholder (:func:`follow_up_lines`).
    """
    body = _body(text)
    markers = [ln for _, ln in body if _marker(ln)]
    words = sum(len(_WORD.findall(ln)) for _, ln in body if not _marker(ln))
    if words >= MIN_WORDS:
        return None
    if markers:
        shown = markers[0].strip()[:60]
        if any(_FILLER.search(m) for m in markers):
            return f"filler text (lorem ipsum), {words} words besides it"
        return f"no substance besides placeholder lines ({shown!r}; {words} other words, fewer than {MIN_WORDS})"
    return f"only {words} words of content (fewer than {MIN_WORDS})"


def follow_up_lines(text: str) -> list[tuple[int, str]]:
    """The placeholder marker lines of a real document, (1-based line number, line stripped): each
    costs :data:`FOLLOW_UP_COST` completeness points, and nothing else."""
    return [(i, ln.strip()) for i, ln in _body(text) if _marker(ln)]


def charge_follow_ups(completeness: float, text: str) -> tuple[float, list[tuple[int, str, float]]]:
    """``completeness`` less :data:`FOLLOW_UP_COST` per follow-up line of ``text``, floor 0, and each
    line's (line number, line, points it actually took). Both deliverables judges charge it."""
    value = completeness
    charged = []
    for n, line in follow_up_lines(text):
        lost = min(FOLLOW_UP_COST, value)
        value -= lost
        charged.append((n, line, lost))
    return value, charged
