"""Is a written deliverable a placeholder? (SPEC §1: missing or placeholder (TODO) → 0). Pure."""

from __future__ import annotations

import re

MIN_WORDS = 15
# A marker line is the marker alone, or the marker followed by ':' / '-' / ')' / ']' and a note
# ("TODO: write this"). "TODO in the retry path ..." wrapped onto a new line is prose, not a marker.
_PLACEHOLDER_LINE = re.compile(r"^\W*(todo|tbd|fixme|xxx|coming soon|to be written)\s*($|[:\-\u2013\u2014)\].!])", re.I)
_WORD = re.compile(r"[^\W_]{2,}")
_FILLER = re.compile(r"lorem ipsum", re.I)


def placeholder_reason(text: str) -> str | None:
    """Why ``text`` is a placeholder, or None when it is a real document.

    A placeholder is empty, has fewer than 15 words outside headings, or has a line that is itself a
    placeholder marker (``TODO``, ``TODO: explain``, ``- TBD``, ``lorem ipsum``...). A real document
    may mention a TODO in its prose, even where wrapping puts the word first on a line.
    """
    body_lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if _FILLER.search(text):
        return "filler text (lorem ipsum)"
    for ln in body_lines:
        if _PLACEHOLDER_LINE.match(ln):
            return f"placeholder line: {ln.strip()[:60]!r}"
    words = sum(len(_WORD.findall(ln)) for ln in body_lines)
    if words < MIN_WORDS:
        return f"only {words} words of content (fewer than {MIN_WORDS})"
    return None
