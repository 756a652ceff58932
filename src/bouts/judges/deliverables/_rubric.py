"""The four sub-scores of a written deliverable (SPEC §1: accuracy 40, clarity 25, completeness 20,
actionability 15), each 0-100 with the evidence behind it. Pure: a parsed document in, scores out.

Length is not a criterion: no rule rewards more words. What each rule looks for, and its limits, is
in docs/quality-judges.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bouts.judges.deliverables._evidence import CodeEvidence
from bouts.judges.deliverables._text import Document, is_key, stem, terms
from bouts.scoring.explain import fmt
from bouts.scoring.placeholder import FOLLOW_UP_COST, charge_follow_ups

STATED = 0.7
"""Share of a fact's (weighted) terms one passage must hold for the fact to count as stated."""
UNSTATED = 0.3
"""At or below this share the fact is absent; between the two, partial credit."""
FACTS_SHARE = 0.6
"""Accuracy's share for the ``expect`` facts when the challenge lists some; the rest checks the names
the document cites against the diff and the tests."""

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
JARGON_ALLOWED = frozenset({
    "HTTP", "HTTPS", "SQL", "API", "ID", "JSON", "CPU", "OK", "URL", "URLs", "UTF", "ASCII", "CSV", "CLI",
    "UI", "IO", "OS", "CI", "PR", "ISO", "TODO", "TBD", "FIXME", "XXX", "README", "NULL", "NOT", "AND", "OR", "TRUE",
    "FALSE", "GET", "POST",
    "PUT", "PATCH", "RAM", "TCP", "UDP", "IP", "TLS", "XML", "HTML", "CSS", "YAML", "TOML", "PDF", "UUID", "NB", "AM",
    "PM", "UTC", "USD", "EUR", "UK", "US", "EU", "FAQ"})
"""Abbreviations a technical reader knows; any other all-caps word of 2-5 letters must be defined."""
JARGON_COST = 5
JARGON_CAP = 15
NOISE_FREE_SHARE = 0.05
"""Share of a document's prose that may be noise before clarity pays for it (see ``noise``)."""
NOISE_CAP = 50

_BOLD_LABEL = re.compile(r"^\s*\*\*([^*]{2,40})\*\*")
_FILE_REF = re.compile(r"(?<![\w./-])[\w./-]{1,240}\.(?:py|[mc]?js|jsx|tsx?|sql|toml|cfg|ini|json|ya?ml|md|txt)"
                       r"(?::\d+|::\w+)?\b")
"""A path with a known extension. It starts only where a path could (not inside one) and is at most
240 characters, so a long run like ``a-a-a-…`` is scanned once, not once per position (that was
quadratic: 64 kB took 25 s)."""
_FILE_PARTS = re.compile(r"(.+?)(?:::(\w+)|:\d+)?$")
_CODE_EXTENSIONS = frozenset({"py", "js", "mjs", "cjs", "jsx", "ts", "tsx", "sql"})
_TEST_FUNCTION = re.compile(r"\btest_\w+")
_QUOTED = re.compile(r"[\"“]([^\"”\n]{3,120})[\"”]")
_BARE_QUALNAME = re.compile(r"(?<![\w./-])([A-Z][A-Za-z0-9_]*\.[a-z_]\w*)(?![\w/(])")
_INLINE_CODE = re.compile(r"`([^`\n]{1,80})`")
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*(?:\(\))?$")
_CALLEE = re.compile(r"^([A-Za-z_$][\w.$]*?)(?:\(.*\))?$")
"""An inline-code name, or the function a call in inline code calls (``_close(id, status)``)."""
_COMMAND = re.compile(r"(?m)^\s*(?:\$\s*)?(?:pytest|python3?|pip|uv|git|make|npm|npx|ruff|mypy|tox|bash|sh|curl)\b")
_TEST_NAME = re.compile(r"\btest_\w+|\btests?/[\w/.-]+")
_TEST_MENTION = re.compile(r"\b(?:regression tests?|tests? (?:asserts?|checks?|covers?|walks?)|unit tests?)\b", re.I)
_LIST_ITEM = re.compile(r"(?m)^\s*(?:[-*+]|\d+[.)])\s+\S")
_OWNER = re.compile(r"\b(?:owner|owned by|assignee|deadline|due (?:by|date)|by (?:end of|next) \w+|next sprint|"
                    r"follow[- ]up|@\w+)\b", re.I)
_ACRONYM = re.compile(r"(?<![\w`/.])([A-Z]{2,5})s?(?![\w`/-])")
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s")
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


_IDENT = re.compile(r"[A-Za-z_][\w]*")


def unbacked_names(fact: str, ev: CodeEvidence | None) -> tuple[str, ...]:
    """The code's functions and classes an ``expect`` fact is about, when the diff touches none of
    them (none changed, none on a changed line): the document may state that fact, but not about this
    submission's change. Empty when the fact names no definition or the diff backs one of them."""
    if ev is None:
        return ()
    named = tuple(dict.fromkeys(n for n in _IDENT.findall(fact) if n in ev.defs))
    if not named or any(n in ev.changed_defs or n in ev.diff_names for n in named):
        return ()
    return named


def fact_accuracy(doc: Document, facts: Sequence[str], ev: CodeEvidence | None = None) -> SubScore:
    """Share of the challenge's ``expect`` facts the document states (see ``STATED``). With the code
    evidence, a fact about functions the diff does not touch earns nothing however well it is stated
    (``unbacked_names``): a document describing fixes the code does not make is no analysis of it."""
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
        unbacked = unbacked_names(fact, ev) if credit > 0 else ()
        if unbacked:
            credit = 0.0
        credits.append(credit)
        missing = ", ".join(sorted(wanted - held)[:6])
        verdict = ("stated, but the diff changes none of " + ", ".join(f"`{n}`" for n in unbacked)
                   if unbacked else "stated" if credit == 1 else "partly stated" if credit > 0 else "not stated")
        evidence.append(Evidence(
            "deliverables.fact", f"fact {i} {verdict} ({fmt(round(best * 100))}% of its terms"
            f"{f' in {where!r}' if where else ''}{f'; missing: {missing}' if missing and credit < 1 else ''}): {fact}",
            (1 - credit) * 100 / len(facts)))
    value = sum(credits) / len(credits) * 100
    return SubScore(value, f"facts = {fmt(round(sum(credits), 2))} of {len(facts)} expected facts stated "
                           f"× 100 = {fmt(round(value, 2))}", tuple(evidence))


@dataclass(frozen=True)
class Citation:
    """A file, function or test the document names, checked against the evidence."""

    ref: str
    verdict: Literal["match", "neutral", "error"]
    why: str
    units: tuple[tuple[str, str], ...] = ()
    """Changed units (``CodeEvidence.changed_units``) the citation names."""


def _units_named(ev: CodeEvidence, name: str) -> tuple[tuple[str, str], ...]:
    return tuple(u for u in ev.changed_units
                 if (u[1] and (u[1] == name or u[1].endswith("." + name)))
                 or (not u[1] and name.rsplit(".", 1)[-1] in ev.file_defs.get(u[0], ())))


def _cite_test(ref: str, name: str, ev: CodeEvidence, *, strict: bool = True) -> Citation | None:
    if name not in ev.tests:
        return Citation(ref, "error", "no test of the challenge or the run has this name") if strict else None
    if ev.tests[name]:
        return Citation(ref, "match", "a test that exercises the changed code"
                        + (" or did not pass in the run" if ev.has_run else ""))
    return Citation(ref, "neutral", "a test of the challenge that does not exercise the changed code")


def _cite_file(ref: str, ev: CodeEvidence) -> Citation | None:
    m = _FILE_PARTS.match(ref)
    path, rest = (m.group(1), m.group(2) or "") if m else (ref, "")
    path = path.removeprefix("./")
    tests = [t for t in ev.test_files if t == path or t.endswith("/" + path) or t.startswith(path.rstrip("/") + "/")]
    if tests or path.startswith("tests/"):
        if rest:
            return _cite_test(ref, rest if rest.startswith("test") else rest.lower(), ev)
        if not tests:
            return Citation(ref, "error", "no such test file in the challenge")
        tied = any(ev.test_files[t] for t in tests)
        return Citation(ref, "match" if tied else "neutral",
                        "a test file that exercises the changed code" if tied else "a test file of the challenge")
    found = [f for f in ev.files if f == path or f.endswith("/" + path)]
    if not found:
        if path.rsplit(".", 1)[-1] in _CODE_EXTENSIONS:
            return Citation(ref, "error", "no such file in the submission or the starter")
        return None  # a config or document name: not code the diff could have changed
    changed = [f for f in found if f in ev.changed_files]
    if rest:
        if changed and rest in ev.changed_defs:
            units = tuple(u for u in _units_named(ev, rest) if u[0] in changed)
            return Citation(ref, "match", "a function the diff changed", units)
        if rest in ev.defs or rest in ev.names:
            return Citation(ref, "neutral", "exists, not changed by the diff")
        return Citation(ref, "error", f"`{rest}` is not defined in {path}")
    if changed:
        return Citation(ref, "match", "a file the diff changed", tuple(u for u in ev.changed_units
                                                                      if u[0] in changed and not u[1]))
    return Citation(ref, "neutral", "exists, not changed by the diff")


def _cite_name(ref: str, ev: CodeEvidence) -> Citation:
    parts = ref.split(".")
    for i in range(len(parts)):
        suffix = ".".join(parts[i:])
        if suffix in ev.changed_defs:
            return Citation(ref, "match", "a function or class the diff changed", _units_named(ev, suffix))
    if parts[-1] in ev.diff_names:
        return Citation(ref, "match", "on a line the diff added, replaced or removed")
    if ref in ev.defs or all(p in ev.names for p in parts):
        return Citation(ref, "neutral", "exists, not changed by the diff")
    return Citation(ref, "error", "not in the submission's code, the starter or the tests")


def citations(doc: Document, ev: CodeEvidence) -> list[Citation]:
    """Every file, function, class and test the document names, each a match, neutral or an error."""
    out: dict[str, Citation] = {}
    files = list(dict.fromkeys(_FILE_REF.findall(doc.text)))
    for ref in files:
        if (c := _cite_file(ref, ev)) is not None:
            out.setdefault(ref, c)
    for name in dict.fromkeys(_TEST_FUNCTION.findall(doc.text)):
        if not any(name in f for f in files) and (c := _cite_test(name, name, ev)) is not None:
            out.setdefault(name, c)
    for m in _QUOTED.finditer(doc.text):
        if (c := _cite_test(m.group(1), m.group(1).lower(), ev, strict=False)) is not None:
            out.setdefault(m.group(1), c)
    names = [m.group(1) for code in _INLINE_CODE.finditer(doc.text) if (m := _CALLEE.match(code.group(1)))]
    names += [m.group(1) for m in _BARE_QUALNAME.finditer(_INLINE_CODE.sub(" ", doc.prose))]
    for name in dict.fromkeys(names):
        if name in out or _TEST_FUNCTION.fullmatch(name) or any(name in f for f in files):
            continue
        out[name] = _cite_name(name, ev)
    return list(out.values())


def evidence_accuracy(doc: Document, ev: CodeEvidence) -> SubScore:
    """How well the names the document cites match the diff and the tests (see docs/quality-judges.md):
    ``100 × (precision + coverage) / 2``, or ``100 × precision`` when the submission changed nothing."""
    cited = citations(doc, ev)
    matches = [c for c in cited if c.verdict == "match"]
    errors = [c for c in cited if c.verdict == "error"]
    units = set(ev.changed_units)
    named = {u for c in matches for u in c.units} & units
    p_weight = 50.0 if units else 100.0
    checked = len(matches) + len(errors)
    precision = len(matches) / checked if checked else 0.0
    evidence = [Evidence("deliverables.evidence-match", f"cites `{c.ref}`: {c.why}") for c in matches]
    evidence += [Evidence("deliverables.evidence-neutral", f"cites `{c.ref}`: {c.why} (neutral)")
                 for c in cited if c.verdict == "neutral"]
    evidence += [Evidence("deliverables.unknown-reference", f"cites `{c.ref}`: {c.why}", p_weight / checked)
                 for c in errors]
    if not checked:
        evidence.append(Evidence("deliverables.unverifiable",
                                 "names no changed file, function or class and no test to check against the diff",
                                 p_weight))
    value = p_weight * precision
    summary = f"{len(matches)}/{checked} checkable names match the diff or its tests"
    if units:
        coverage = len(named) / len(units)
        value += 50 * coverage
        missing = sorted(f"{f}::{q}" if q else f for f, q in units - named)
        evidence.append(Evidence(
            "deliverables.coverage", f"names {len(named)} of {len(units)} changed function(s)/file(s)"
            + (f"; not named: {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}" if missing else ""),
            50 * (1 - coverage)))
        formula = (f"evidence = 50 × precision {fmt(round(precision, 3))} + 50 × coverage "
                   f"{fmt(round(coverage, 3))} ({len(named)}/{len(units)} changed units named)")
    else:
        formula = f"evidence = 100 × precision {fmt(round(precision, 3))} (the submission changed no code)"
    return SubScore(value, f"{formula} = {fmt(round(value, 2))}; {summary}", tuple(evidence))


def accuracy(doc: Document, facts: Sequence[str], ev: CodeEvidence | None = None) -> SubScore:
    """``FACTS_SHARE`` × facts + the rest × evidence when the challenge lists ``expect`` facts;
    evidence alone when it lists none; facts alone when no evidence is given (rubric tests)."""
    if ev is None:
        return fact_accuracy(doc, facts)
    checked = evidence_accuracy(doc, ev)
    if not facts:
        return SubScore(checked.value, f"accuracy = {checked.summary} (the challenge lists no expected facts)",
                        checked.evidence)
    stated = fact_accuracy(doc, facts, ev)
    value = FACTS_SHARE * stated.value + (1 - FACTS_SHARE) * checked.value
    evidence = [replace(e, lost=e.lost * FACTS_SHARE) for e in stated.evidence]
    evidence += [replace(e, lost=e.lost * (1 - FACTS_SHARE)) for e in checked.evidence]
    return SubScore(value, f"accuracy = {fmt(FACTS_SHARE)} × facts {fmt(round(stated.value, 2))} + "
                           f"{fmt(round(1 - FACTS_SHARE, 2))} × evidence {fmt(round(checked.value, 2))} = "
                           f"{fmt(round(value, 2))} [{stated.summary}; {checked.summary}]", tuple(evidence))


def undefined_jargon(doc: Document, vocabulary: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """(acronym, line) of each all-caps abbreviation of 2-5 letters the prose uses without defining it at
    first use: defined is ``(ABC)`` anywhere, or a first use preceded by, or followed by a parenthesis
    of, words whose initials spell it ("mean time to recovery MTTR", "WAL (write-ahead log)").
    ``JARGON_ALLOWED`` and ``vocabulary`` (words of the task and the code) are not jargon."""
    prose = _INLINE_CODE.sub(" ", "\n".join(
        line for line in _strip_fences(doc.text).splitlines() if not _HEADING_LINE.match(line)))
    seen: set[str] = set()
    out: list[tuple[str, int]] = []
    for m in _ACRONYM.finditer(prose):
        word = m.group(1)
        if word in seen or word in JARGON_ALLOWED or word in vocabulary:
            continue
        seen.add(word)
        before = re.findall(r"[A-Za-z]+", prose[max(0, m.start() - 120):m.start()])[-len(word):]
        paren = re.match(r"\s?\(([^)]{0,120})\)", prose[m.end():])
        spelled = [_initials(before), _initials(re.findall(r"[A-Za-z]+", paren.group(1)))[:len(word)] if paren else ""]
        if f"({word})" in prose or word in spelled:
            continue
        first = re.search(rf"\b{word}", doc.text)
        out.append((word, doc.text[:first.start()].count("\n") + 1 if first else 1))
    return out


def _initials(words: Sequence[str]) -> str:
    return "".join(w[0] for w in words).upper()


def _strip_fences(text: str) -> str:
    out, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return "\n".join(out)


def clarity(doc: Document, vocabulary: frozenset[str] = frozenset()) -> SubScore:
    """Structure and readability: headings, paragraph size, sentence length, undefined jargon. Starts
    at 100. ``vocabulary``: words the reader already has (the task's and the code's)."""
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
    noisy, total, why = noise(doc)
    if total and noisy / total > NOISE_FREE_SHARE:
        share = noisy / total
        losses.append(Evidence("clarity.noise", f"{fmt(round(100 * share, 1))}% of the text is padding ({why})",
                               round(min(NOISE_CAP, 100 * share), 2)))
    jargon = undefined_jargon(doc, vocabulary)
    losses += [Evidence("clarity.jargon", f"{word} is used without being defined at first use",
                        JARGON_COST, line) for word, line in jargon[:JARGON_CAP // JARGON_COST]]
    value = max(0.0, 100 - sum(e.lost for e in losses))
    taken = " ".join(f"− {fmt(round(e.lost, 2))} ({e.rule.split('.')[1]})" for e in losses)
    info = Evidence("clarity.shape", f"{len(doc.headings)} heading(s), {len(doc.paragraphs)} paragraph(s), "
                                     f"{len(lengths)} sentence(s) averaging {fmt(round(mean, 1))} words")
    summary = f"clarity = max(0, 100 {taken}) = {fmt(round(value, 2))}" if losses else "clarity = 100 (no deduction)"
    return SubScore(value, summary, (info, *losses))


_TABLE_RULE = re.compile(r"^[|:\-\s]+$")
_LONG_TOKEN = 64
"""Longer than any word or hash a reader needs (a sha256 is 64 hex digits)."""


def noise(doc: Document) -> tuple[int, int, str]:
    """(noise characters, prose characters, what the noise was) in ``doc``'s prose.

    Noise is what pads a document without telling the reader anything: runs of four or more
    symbols that are not a Markdown table rule (``>>>>``, ``[[[[``), "words" longer than 64
    characters with no path or identifier punctuation, and paragraphs of five or more words that
    repeat an earlier one word for word. Length alone is never noise (the judge is length-neutral).
    """
    total = sum(len(t) for t in doc.prose.split())
    kinds: dict[str, int] = {}
    seen: set[str] = set()
    for para in doc.paragraphs:
        tokens = para.split()
        key = " ".join(tokens)
        if len(tokens) >= 5 and key in seen:
            kinds["repeated paragraphs"] = kinds.get("repeated paragraphs", 0) + len(key) - len(tokens) + 1
            continue
        seen.add(key)
        for token in tokens:
            if len(token) >= 4 and not any(c.isalnum() for c in token) and not _TABLE_RULE.match(token):
                kinds["symbol runs"] = kinds.get("symbol runs", 0) + len(token)
            elif len(token) > _LONG_TOKEN and not any(c in token for c in "/._:`-="):
                kinds["overlong tokens"] = kinds.get("overlong tokens", 0) + len(token)
    why = ", ".join(f"{k} {v} chars" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
    return sum(kinds.values()), total, why


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
    shown = kind if kind in SECTIONS else "document"
    summary = f"completeness ({shown}) = mean({listed}) × 100 = {fmt(round(value, 2))}"
    return follow_ups(SubScore(value, summary, tuple(evidence)), doc.text)


def follow_ups(sub: SubScore, text: str) -> SubScore:
    """A real document's follow-up marker lines (``- TODO: add a load test``) each take
    ``FOLLOW_UP_COST`` completeness points, floor 0, and nothing else (SPEC §1)."""
    value, charged = charge_follow_ups(sub.value, text)
    if not charged:
        return sub
    evidence = sub.evidence + tuple(
        Evidence("completeness.follow_up", f"follow-up left open: {line[:80]!r}", lost, n) for n, line, lost in charged
    )
    summary = (f"{sub.summary}; − {fmt(FOLLOW_UP_COST)} × {len(charged)} follow-up line(s) left open "
               f"(line {', '.join(str(n) for n, _, _ in charged)}) = {fmt(round(value, 2))}")
    return SubScore(value, summary, evidence)


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
