"""Whose words a deliverable's are: text copied from the challenge's public description, and text
addressed to the judge instead of the reader (issue 37). Pure: strings in, spans out.

**Copied text.** The agent was given the challenge's title and description (``challenge.toml``,
the prompt ``bouts.agents`` writes) and the starter's documents (its README). A run of
``SHINGLE`` or more words of the document that also occurs in that text (lower-cased words and
numbers, punctuation and Markdown ignored) is copied: it tells the reader nothing the task did not,
so it earns nothing. The offline judge scores what is left once copied spans are cut.

**Text addressed to a judge.** A sentence that speaks to whoever scores the document rather than
to its reader earns nothing and is flagged (``deliverables.judge-injection``). It is recognised by
its structure, never by a fixed phrase: a chat-role marker (a line led by ``system``/``assistant``/
``user``/``developer``/``instruction`` and a colon or bracket, a chat-template token); an order to
set instructions aside (an override verb whose object is instructions, a rubric, a prompt, rules,
criteria); or a score request (a scoring verb or score expression aimed at the document itself, at a
reader who scores, or given as an order). See docs/quality-judges.md ("Copied and injected text").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SHINGLE = 6
"""Words in a row that make a copy: long enough that two honest writers rarely share it by chance
("the stock valuation is sometimes a" is already the task's own sentence), short enough that
copying a sentence with a word changed here and there still leaves copies on each side."""

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    why: str


def normal(text: str) -> tuple[str, list[int]]:
    """``text`` as it reads: NFKC-normalised and case-folded, invisible format characters (zero-width
    spaces and joiners, soft hyphens, bidi controls) dropped, so that ``pag\u200bing`` and ``ＳＹＳＴＥＭ``
    read as ``paging`` and ``system``; with, for each character, the offset in ``text`` it came from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch.lower())
            where.append(i)
        elif unicodedata.category(ch) != "Cf":
            for c in unicodedata.normalize("NFKC", ch).casefold():
                out.append(c)
                where.append(i)
    where.append(len(text))
    return "".join(out), where


def _words(text: str) -> list[tuple[str, int, int]]:
    flat, where = normal(text)
    return [(m.group(0), where[m.start()], where[m.end() - 1] + 1) for m in _WORD.finditer(flat)]


def shingles(texts: Iterable[str], n: int = SHINGLE) -> frozenset[tuple[str, ...]]:
    """Every run of ``n`` words of ``texts`` (each text on its own)."""
    out: set[tuple[str, ...]] = set()
    for text in texts:
        words = [w for w, _, _ in _words(text)]
        out.update(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
    return frozenset(out)


def copied_spans(text: str, public: frozenset[tuple[str, ...]], n: int = SHINGLE) -> list[Span]:
    """The character spans of ``text`` made of runs of ``n``+ words that occur in ``public``."""
    words = _words(text)
    copied = [False] * len(words)
    for i in range(len(words) - n + 1):
        if tuple(w for w, _, _ in words[i:i + n]) in public:
            for j in range(i, i + n):
                copied[j] = True
    spans: list[Span] = []
    i = 0
    while i < len(words):
        if not copied[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(words) and copied[j + 1]:
            j += 1
        spans.append(Span(words[i][1], words[j][2], "copied from the challenge's description"))
        i = j + 1
    return spans


# -- text addressed to a judge ---------------------------------------------------------------

_ROLES = r"(?:system|assistant|user|developer|instructions?|prompt|human|ai|operator)"
_SPEAKERS = r"(?:system|assistant|developer|instructions?|prompt|ai)"
_ROLE_LINE = re.compile(
    rf"^[^\w\n]*(?:\[\s*{_ROLES}\b[^\]\n]{{0,30}}\]|<\s*/?\s*{_ROLES}\b[^>\n]{{0,30}}>|{_SPEAKERS}\b[\w \t-]{{0,24}}:)",
    re.I | re.M)
"""``system:``, ``SYSTEM NOTE:``, ``[system]``, ``<system>``, ``Assistant:`` at the start of a line."""
_TEMPLATE = re.compile(r"<\|[a-z_ ]{1,30}\|>|\[/?INST\]|<<\s*/?SYS\s*>>|</?s>|<\|endoftext\|>", re.I)

_OVERRIDE_VERB = r"(?:ignor|disregard|forget|overrid|bypass|skip|drop|abandon|set\s+aside|neglect)\w*"
_INSTRUCTION_NOUN = r"(?:instruction|direction|rule|rubric|prompt|guideline|criteri|polic|constraint|task|orders)\w*"
_OVERRIDE = re.compile(rf"\b{_OVERRIDE_VERB}\b(?:\W+\w+){{0,5}}?\W+{_INSTRUCTION_NOUN}\b", re.I)

_SCORER = (r"(?:judge|grader|evaluator|reviewer|assessor|scorer|examiner|marker|rater|model|llm|ai|gpt|claude|"
           r"assistant|bot|language\s+model|scoring\s+(?:system|engine|model))s?")
_ADDRESS = re.compile(rf"\b(?:dear|hey|hi|hello|attention|note\s+(?:to|for)|to|for|as)\s+"
                      rf"(?:the\s+|any\s+|an?\s+|all\s+)?"
                      rf"(?:\w+\s+)?{_SCORER}\b|^\W*{_SCORER}\W*[:,]|\b(?:if|when|whoever|any(?:one)?)\b[^.]{{0,20}}"
                      rf"\b(?:{_SCORER}|you)\b[^.]{{0,30}}\b(?:read|review|grad|scor|evaluat|assess)", re.I)
_CORE_VERB = r"(?:scor|grad|evaluat|assess|award)\w*"
_WEAK_VERB = r"(?:giv|assign|rat|mark|put|output|return|respond|set)\w*"
_SCORE_NOUN = r"(?:scores?|grades?|ratings?|marks|stars|verdicts?|evaluations?|assessments?)"
_STRONG_SCORE = re.compile(
    r"\b\d{1,3}(?:\.\d+)?\s*/\s*\d{1,3}\b(?!\.\d)|\b\d{1,3}\s+out\s+of\s+\d{1,3}\b|"
    r"\b(?:full|perfect|maximum|max|highest|top|best|excellent|outstanding|flawless|passing|high)\s+"
    rf"(?:{_SCORE_NOUN}|marks?|points)\b|\b(?:grade|score|rating|mark)s?\b[^.\n]{{0,24}}?\b(?:be|is|=|:|to|at|of|as)\s+"
    r"(?:an?\s+)?(?:a\+|100|10|5|excellent|perfect|outstanding|maximum|max|full|exemplary)(?!\w)|"
    r"\bas\s+(?:excellent|perfect|outstanding|flawless|exemplary)\b|\ba\+", re.I)
_TARGET = re.compile(r"\b(?:this|it|the\s+(?:document|analysis|report|submission|answer|response|deliverable|"
                     r"rca|work|solution|write-?up|entry|agent|author)|my|our|me|us|every\s+criteri\w*|"
                     r"all\s+(?:criteria|dimensions|categories|sections))\b", re.I)
_SCORING = re.compile(rf"\b{_CORE_VERB}\b|\b{_SCORE_NOUN}\b|\b{_WEAK_VERB}\b", re.I)
_IMPERATIVE = re.compile(rf"^\W*(?:(?:please|kindly|now|just|simply|so)\W+)?(?:{_CORE_VERB}|{_WEAK_VERB}|treat|"
                         r"consider|regard|count|make\s+sure|ensure|remember)\b", re.I)
_MODAL_TO_SCORER = re.compile(
    rf"\byou\b[^.]{{0,40}}\b(?:must|should|shall|will|need\s+to|have\s+to|are\s+to|"
    rf"are\s+(?:instructed|required|asked|expected)\s+to)\b[^.]{{0,40}}\b{_CORE_VERB}\b", re.I)
_DESERVES = re.compile(r"\b(?:deserv|merit|earn|warrant|receiv|get|must\s+be|should\s+be|shall\s+be|will\s+be|"
                       r"is\s+worth)\w*\b", re.I)
_BARE_SCORE = re.compile(r"\b(?:\d{1,3}(?:\.\d+)?|excellent|perfect|outstanding|flawless|exemplary)\s*[.!]?\s*$", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")


def _judge_sentence(s: str) -> str | None:
    """Why sentence ``s`` is addressed to a judge, or None."""
    if _OVERRIDE.search(s):
        return "asks the reader to set its instructions aside"
    strong = bool(_STRONG_SCORE.search(s))
    scoring = bool(_SCORING.search(s))
    addressed = bool(_ADDRESS.search(s))
    if addressed and (scoring or strong):
        return "speaks to whoever scores it"
    if _MODAL_TO_SCORER.search(s):
        return "tells the reader how to score"
    if strong and scoring and (_TARGET.search(s) or _IMPERATIVE.search(s) or _DESERVES.search(s)):
        return "asks for a score"
    if _IMPERATIVE.search(s) and _TARGET.search(s) and (strong or _BARE_SCORE.search(s) and scoring):
        return "asks for a score"
    return None


def injection_spans(text: str) -> list[Span]:
    """Character spans of ``text`` addressed to a judge: role-marked lines whole, and sentences that
    ask for a score or to set instructions aside."""
    flat, where = normal(text)  # read as a reader reads it: no zero-width tricks, no full-width letters
    spans: list[Span] = []
    for m in _ROLE_LINE.finditer(flat):
        end = flat.find("\n", m.start())
        spans.append(Span(m.start(), len(flat) if end < 0 else end, "a chat-role marker"))
    for m in _TEMPLATE.finditer(flat):
        end = flat.find("\n", m.start())
        spans.append(Span(m.start(), len(flat) if end < 0 else end, "a chat-template token"))
    for m in _SENTENCE.finditer(flat):
        why = _judge_sentence(m.group(0))
        if why:
            spans.append(Span(m.start(), m.end(), why))
    return merge([Span(where[s.start], where[s.end - 1] + 1 if s.end > s.start else where[s.start], s.why)
                  for s in spans])


def merge(spans: Sequence[Span]) -> list[Span]:
    out: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and s.start <= out[-1].end:
            last = out[-1]
            out[-1] = Span(last.start, max(last.end, s.end), last.why)
        else:
            out.append(s)
    return out


def cut(text: str, spans: Sequence[Span]) -> str:
    """``text`` without ``spans`` (line breaks inside a span are kept, so the structure stays)."""
    out: list[str] = []
    pos = 0
    for s in merge(spans):
        out.append(text[pos:s.start])
        out.append("\n" * text.count("\n", s.start, s.end))
        pos = s.end
    out.append(text[pos:])
    return "".join(out)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
