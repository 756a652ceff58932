"""Text primitives of the offline deliverables judge: a Markdown document split into parts, and
keyword/number matching with a light stemmer. Pure: strings in, data out.

The stemmer is deliberately crude ("stemming-lite"): it strips a few English suffixes so that
"truncated", "truncates" and "truncation" meet at "truncat", and "cancelled" meets "cancel". It does
not know synonyms: "rounded down" does not match "truncated". See docs/quality-judges.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STOPWORDS = frozenset(
    [
        "a", "an", "the", "and", "or", "but", "if", "then", "else", "of", "to", "in", "on", "at", "by", "for",
        "with", "from", "into", "onto", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its",
        "this", "that", "these", "those", "there", "their", "they", "them", "he", "she", "we", "you", "i", "our",
        "your", "not", "no", "so", "such", "than", "too", "very", "can", "could", "should", "would", "will",
        "shall", "may", "might", "must", "do", "does", "did", "done", "has", "have", "had", "having", "which",
        "who", "whom", "whose", "what", "when", "where", "why", "how", "all", "any", "each", "every", "both",
        "either", "neither", "more", "most", "other", "some", "only", "own", "same", "just", "also", "up", "out",
        "over", "under", "again", "further", "once", "here", "about", "after", "before", "between", "through",
        "during"
    ]
)
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z_][a-z0-9_]*")
_SUFFIXES = ("ings", "ing", "ions", "ion", "edly", "ed", "ies", "es", "ly", "s")
_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`(*\"])")


def stem(word: str) -> str:
    """Strip one common suffix (keeping at least 3 letters), a doubled final consonant and a final -e."""
    if word[0].isdigit():
        return word
    for suffix in _SUFFIXES:
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            continue  # class, status, analysis: not plurals
        if suffix == "es" and not word.endswith(("sses", "xes", "zes", "ches", "shes")):
            continue  # prices -> price (then -e goes below), but classes -> class
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls0123456789":
        word = word[:-1]  # dropped -> dropp -> drop
    elif len(word) > 4 and word.endswith("ll"):
        word = word[:-1]  # cancelled -> cancell -> cancel
    if len(word) >= 4 and word.endswith("e"):
        word = word[:-1]  # truncate/truncated/truncates all meet at "truncat"
    return word


def terms(text: str) -> list[str]:
    """Content terms of ``text``: lower-cased, stop words out, stemmed; identifiers kept whole and
    also split at underscores (``page_size`` gives ``page_size``, ``page``, ``size``)."""
    out: list[str] = []
    for token in _TOKEN.findall(text.lower().replace("`", " ")):
        token = token.rstrip(".")
        if not token or token in STOPWORDS or (len(token) < 2 and not token.isdigit()):
            continue
        if "_" in token.strip("_"):
            out.append(token)  # an identifier matches exactly, its words loosely
            out += [stem(p) for p in token.split("_") if len(p) > 1 and p not in STOPWORDS]
        else:
            out.append(stem(token))
    return out


def is_key(term: str) -> bool:
    """Numbers and identifiers carry more evidence than ordinary words."""
    return term[0].isdigit() or "_" in term


@dataclass(frozen=True)
class Document:
    """A Markdown document cut into what the clarity and completeness rules look at."""

    text: str
    headings: tuple[tuple[int, str], ...]
    """(line, heading text), title included."""
    paragraphs: tuple[str, ...]
    """Prose blocks (code blocks and headings excluded)."""
    code_blocks: tuple[str, ...]
    sections: tuple[tuple[str, str], ...]
    """(heading, body) for every heading; text before the first heading has heading ''."""

    @property
    def prose(self) -> str:
        return "\n\n".join(self.paragraphs)

    def sentences(self) -> list[str]:
        out: list[str] = []
        for para in self.paragraphs:
            flat = " ".join(line.strip().lstrip("-*+0123456789.) ") for line in para.splitlines())
            out += [s for s in _SENTENCE_END.split(flat) if s.strip()]
        return out


def parse_markdown(text: str) -> Document:
    """Split ``text`` into headings, prose paragraphs, code blocks and heading-led sections."""
    headings: list[tuple[int, str]] = []
    paragraphs: list[str] = []
    code: list[str] = []
    sections: list[tuple[str, list[str]]] = [("", [])]
    block: list[str] = []
    fence: list[str] | None = None
    lines = text.splitlines()

    def flush() -> None:
        if block:
            paragraphs.append("\n".join(block))
            block.clear()

    for n, line in enumerate(lines, start=1):
        if _FENCE.match(line.strip()):
            if fence is None:
                flush()
                fence = []
            else:
                code.append("\n".join(fence))
                sections[-1][1].append("\n".join(fence))
                fence = None
            continue
        if fence is not None:
            fence.append(line)
            continue
        match = _HEADING.match(line)
        setext = n < len(lines) and _SETEXT.match(lines[n]) and line.strip() and not block
        if match or setext:
            flush()
            title = match.group(2).strip("# ").strip() if match else line.strip()
            headings.append((n, title))
            sections.append((title, []))
            continue
        if _SETEXT.match(line) and headings and headings[-1][0] == n - 1:
            continue
        if not line.strip():
            flush()
            continue
        block.append(line)
        sections[-1][1].append(line)
    flush()
    if fence:
        code.append("\n".join(fence))
    return Document(text, tuple(headings), tuple(paragraphs), tuple(code),
                    tuple((h, "\n".join(body)) for h, body in sections))
