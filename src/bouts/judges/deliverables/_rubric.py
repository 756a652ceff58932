"""The four sub-scores of a written deliverable (SPEC §1: accuracy 40, clarity 25, completeness 20,
actionability 15), each 0-100 with the evidence behind it. Pure: a parsed document in, scores out.

Length is not a criterion: no rule rewards more words. What each rule looks for, and its limits, is
in docs/quality-judges.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bouts.judges.deliverables._text import Document, is_key, stem, terms
from bouts.scoring.explain import fmt

STATED = 0.7
"""Share of a fact's (weighted) terms one passage must hold for the fact to count as stated."""
UNSTATED = 0.3
"""At or below this share the fact is absent; between the two, partial credit."""

# Section kinds per deliverable kind: (section, words that name it). A heading or bold label naming a
# section is full credit; the words only in the body is BODY_CREDIT (it is there, not findable).
SECTIONS: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "root-cause-analysis": (
        ("symptom", ("symptom", "observ", "report", "impact", "problem", "expect", "instead", "wrong")),
        ("root cause", ("cause", "because", "due", "reason", "root", "why", "origin")),
        ("fix", ("fix", "resolution", "solution", "patch", "remedy", "correct")),
        ("prevention / tests", ("prevent", "prevention", "recurrence", "regression", "guard", "invariant",
                                "monitor", "lesson", "test")),
    ),
    "adr": (
        ("context", ("context", "background", "problem", "motivation", "forc")),
        ("decision", ("decision", "decid", "chos", "choos", "adopt")),
        ("consequences", ("consequenc", "tradeoff", "trade", "implication", "downsid", "risk", "cost")),
    ),
    "document": (
        ("overview", ("overview", "purpos", "introduction", "about", "summary")),
        ("usage", ("usag", "use", "how", "install", "run", "getting", "start")),
        ("example", ("example", "exampl", "sampl", "demo")),
    ),
}
SECTIONS = {**SECTIONS, "postmortem": SECTIONS["root-cause-analysis"], "rca": SECTIONS["root-cause-analysis"],
            "docs": SECTIONS["document"]}
BODY_CREDIT = 0.6

_BOLD_LABEL = re.compile(r"^\s*\*\*([^*]{2,40})\*\*")
_FILE_REF = re.compile(r"\b[\w./-]+\.(?:py|js|ts|toml|cfg|ini|json|ya?ml|md|txt)(?::\d+|::\w+)?\b")
_INLINE_CODE = re.compile(r"`([^`\n]{1,80})`")
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*(?:\(\))?$")
_COMMAND = re.compile(r"(?m)^\s*(?:\$\s*)?(?:pytest|python3?|pip|uv|git|make|npm|npx|ruff|mypy|tox|bash|sh|curl)\b")
_TEST_NAME = re.compile(r"\btest_\w+|\btests?/[\w/.-]+")
_TEST_MENTION = re.compile(r"\b(?:regression tests?|tests? (?:asserts?|checks?|covers?|walks?)|unit tests?)\b", re.I)
_LIST_ITEM = re.compile(r"(?m)^\s*(?:[-*+]|\d+[.)])\s+\S")
_OWNER = re.compile(r"\b(?:owner|owned by|assignee|deadline|due (?:by|date)|by (?:end of|next) \w+|next sprint|"
                    r"follow[- ]up|@\w+)\b", re.I)
_EXTENSIONS = frozenset({"py", "js", "ts", "toml", "cfg", "ini", "json", "yml", "yaml", "md", "txt"})
_SENTENCE_WORD = re.compile(r"[A-Za-z0-9_'-]+")


@dataclass(frozen=True)
class Evidence:
    """One reason behind a sub-score: what was found or missed, and the sub-score points it cost."""

    rule: str
    message: str
    lost: float = 0.0
    """Sub-score points (0-100 scale) this cost; 0 for evidence that only explains."""
    line: int | None = None


@dataclass(frozen=True)
class SubScore:
    value: float
    summary: str
    evidence: tuple[Evidence, ...] = ()


def _chunks(doc: Document) -> list[tuple[str, list[str]]]:
    """Passages a fact may be stated in: each section, each paragraph, each pair of paragraphs."""
    out = [(h or "(untitled)", terms(f"{h}\n{body}")) for h, body in doc.sections if body.strip() or h]
    paras = list(doc.paragraphs)
    out += [(p[:40], terms(p)) for p in paras]
    out += [(a[:40], terms(f"{a}\n{b}")) for a, b in zip(paras, paras[1:], strict=False)]
    return out


def accuracy(doc: Document, facts: Sequence[str]) -> SubScore:
    """Share of the challenge's ``expect`` facts the document states (see ``STATED``)."""
    chunks = _chunks(doc)
    evidence: list[Evidence] = []
    credits: list[float] = []
    for i, fact in enumerate(facts, start=1):
        wanted = set(terms(fact))
        weight = {t: 2.0 if is_key(t) else 1.0 for t in wanted}
        total = sum(weight.values()) or 1.0
        best, where, held = 0.0, "", set()
        for name, chunk_terms in chunks:
            present = wanted & set(chunk_terms)
            share = sum(weight[t] for t in present) / total
            if share > best:
                best, where, held = share, name, present
        credit = min(1.0, max(0.0, (best - UNSTATED) / (STATED - UNSTATED)))
        credits.append(credit)
        missing = ", ".join(sorted(wanted - held)[:6])
        verdict = "stated" if credit == 1 else "partly stated" if credit > 0 else "not stated"
        evidence.append(Evidence(
            "deliverables.fact", f"fact {i} {verdict} ({fmt(round(best * 100))}% of its terms"
            f"{f' in {where!r}' if where else ''}{f'; missing: {missing}' if missing and credit < 1 else ''}): {fact}",
            (1 - credit) * 100 / len(facts)))
    value = sum(credits) / len(credits) * 100
    return SubScore(value, f"accuracy = {fmt(round(sum(credits), 2))} of {len(facts)} expected facts stated "
                           f"× 100 = {fmt(round(value, 2))}", tuple(evidence))


def references(doc: Document) -> list[str]:
    """Code names the document cites: inline-code identifiers and file paths."""
    refs = [m.group(1).removesuffix("()") for m in _INLINE_CODE.finditer(doc.text) if _IDENTIFIER.match(m.group(1))]
    refs += _FILE_REF.findall(doc.text)
    return list(dict.fromkeys(refs))


def reference_check(doc: Document, known: frozenset[str]) -> tuple[list[str], list[str]]:
    """(found, unknown) code references: a dotted or ``::`` name is found when every part is known."""
    found, unknown = [], []
    for ref in references(doc):
        parts = [p for p in re.split(r"::|[.:/]", ref) if p and not p.isdigit() and p not in _EXTENSIONS]
        (found if all(p in known for p in parts) or ref in known else unknown).append(ref)
    return found, unknown


def reference_accuracy(doc: Document, known: frozenset[str]) -> SubScore:
    """Without ``expect`` facts: the share of the code names it cites that exist in the submission."""
    found, unknown = reference_check(doc, known)
    if not found and not unknown:
        return SubScore(0.0, "accuracy = 0: no expected facts to check and no code reference to verify",
                        (Evidence("deliverables.unverifiable", "names no file, function or value to check", 100),))
    value = len(found) / (len(found) + len(unknown)) * 100
    evidence = tuple(Evidence("deliverables.unknown-reference", f"cites `{r}`, not found in the submission's code",
                              100 / (len(found) + len(unknown))) for r in unknown)
    return SubScore(value, f"accuracy = {len(found)}/{len(found) + len(unknown)} cited code names exist × 100 = "
                           f"{fmt(round(value, 2))} (the challenge lists no expected facts)", evidence)


def clarity(doc: Document) -> SubScore:
    """Structure and readability: headings, paragraph size, sentence length. Starts at 100."""
    losses: list[Evidence] = []
    words = len(_SENTENCE_WORD.findall(doc.prose))
    if not doc.headings:
        losses.append(Evidence("clarity.no-headings", "no headings: a reader cannot scan it", 20))
    elif words > 300 and len(doc.headings) < 3:
        losses.append(Evidence("clarity.few-headings", f"{words} words under {len(doc.headings)} heading(s)", 10))
    long_paras = [p for p in doc.paragraphs if len(_SENTENCE_WORD.findall(p)) > 150]
    if long_paras:
        losses.append(Evidence("clarity.wall-of-text", f"{len(long_paras)} paragraph(s) over 150 words",
                               min(24, 8 * len(long_paras))))
    lengths = [len(_SENTENCE_WORD.findall(s)) for s in doc.sentences()]
    lengths = [n for n in lengths if n]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    if mean > 25:
        losses.append(Evidence("clarity.sentence-length", f"sentences average {fmt(round(mean, 1))} words (> 25)",
                               min(25, 2 * (mean - 25))))
    very_long = sum(1 for n in lengths if n > 45)
    if very_long:
        losses.append(Evidence("clarity.long-sentences", f"{very_long} sentence(s) over 45 words",
                               min(20, 4 * very_long)))
    value = max(0.0, 100 - sum(e.lost for e in losses))
    taken = " ".join(f"− {fmt(round(e.lost, 2))} ({e.rule.split('.')[1]})" for e in losses)
    info = Evidence("clarity.shape", f"{len(doc.headings)} heading(s), {len(doc.paragraphs)} paragraph(s), "
                                     f"{len(lengths)} sentence(s) averaging {fmt(round(mean, 1))} words")
    summary = f"clarity = max(0, 100 {taken}) = {fmt(round(value, 2))}" if losses else "clarity = 100 (no deduction)"
    return SubScore(value, summary, (info, *losses))


def completeness(doc: Document, kind: str) -> SubScore:
    """Share of the sections a document of ``kind`` needs that it has (heading: full, body: partial)."""
    expected = [(section, tuple(stem(w) for w in words))
                for section, words in SECTIONS.get(kind, SECTIONS["document"])]
    labels = [h for _, h in doc.headings] + [m.group(1) for line in doc.text.splitlines()
                                            if (m := _BOLD_LABEL.match(line))]
    label_terms = set(terms(" ".join(labels)))
    body_terms = set(terms(doc.prose + " " + " ".join(doc.code_blocks)))
    evidence: list[Evidence] = []
    credits = []
    for section, words in expected:
        if any(t.startswith(words) for t in label_terms):
            credit, how = 1.0, "has a heading or label"
        elif any(t.startswith(words) for t in body_terms) or (section == "example" and doc.code_blocks):
            credit, how = BODY_CREDIT, "only mentioned in the text (no heading or label)"
        else:
            credit, how = 0.0, "missing"
        credits.append(credit)
        evidence.append(Evidence("completeness.section", f"{section}: {how}", (1 - credit) * 100 / len(expected)))
    value = sum(credits) / len(credits) * 100
    listed = ", ".join(f"{s} {fmt(c)}" for (s, _), c in zip(expected, credits, strict=True))
    return SubScore(value, f"completeness ({kind if kind in SECTIONS else 'document'}) = mean({listed}) × 100 = "
                           f"{fmt(round(value, 2))}", tuple(evidence))


def actionability(doc: Document) -> SubScore:
    """Points for concrete handles: file references, code names, commands, named tests, steps, owners."""
    files = set(_FILE_REF.findall(doc.text))
    names = {m.group(1) for m in _INLINE_CODE.finditer(doc.text) if _IDENTIFIER.match(m.group(1))}
    tests = set(_TEST_NAME.findall(doc.text))
    test_mention = bool(_TEST_MENTION.search(doc.text))
    steps = len(_LIST_ITEM.findall(doc.text)) >= 2
    owner = bool(_OWNER.search(doc.text))
    command = _COMMAND.search("\n".join([*doc.code_blocks, *(m.group(1) for m in _INLINE_CODE.finditer(doc.text))]))
    checks: list[tuple[str, float, float, str]] = [
        # (rule, earned, possible, what was seen or what is missing)
        ("file-references", 25 if len(files) >= 2 else 15 if files else 0, 25,
         f"cites {len(files)} file(s): {', '.join(sorted(files)[:3])}" if files else "cites no file path"),
        ("code-references", 20 if len(names) >= 3 else 10 if names else 0, 20,
         f"cites {len(names)} code name(s)" if names else "cites no function or variable in `code`"),
        ("commands", 15 if command else 0, 15, "gives a command to run" if command else "gives no command to run"),
        ("tests", 20 if tests else 10 if test_mention else 0, 20,
         f"names tests: {', '.join(sorted(tests)[:3])}" if tests
         else "mentions tests without naming one" if test_mention else "names no test"),
        ("steps", 10 if steps else 0, 10, "lists steps" if steps else "has no list of concrete steps"),
        ("owners", 10 if owner else 0, 10,
         "names an owner, follow-up or timeline" if owner else "names no owner, follow-up or timeline"),
    ]
    evidence = tuple(Evidence(f"actionability.{rule}", seen, possible - earned)
                     for rule, earned, possible, seen in checks)
    value = sum(earned for _, earned, _, _ in checks)
    parts = " + ".join(f"{fmt(earned)} {rule}" for rule, earned, _, _ in checks)
    return SubScore(float(value), f"actionability = {parts} = {fmt(value)}", evidence)
