"""The rubrics an LLM judge scores against: every dimension with a description of every level 0-5.

Levels are anchored in observable properties of the code (or document), so two judges reading the
same submission have the same yardstick; the engine maps a level to 0-100 by ×20. Editing a text
here changes what judges answer: bump ``PROMPT_VERSION`` in ``prompt.py`` so cached answers expire.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Dimension:
    """One scored dimension: what it measures and what each level 0-5 looks like."""

    name: str
    question: str
    levels: tuple[str, str, str, str, str, str]
    """Descriptions of levels 0, 1, 2, 3, 4, 5."""


CODE_QUALITY: tuple[Dimension, ...] = (
    Dimension(
        "readability",
        "Can a maintainer understand the change quickly and correctly?",
        (
            "Unreadable: meaningless names, tangled control flow, logic cannot be followed.",
            "Hard to read: misleading names, very long functions, deep nesting or cleverness hiding intent throughout.",
            "Readable with effort: unclear names, long functions, a style that switches within the change, or "
            "clever constructs whose intent must be decoded.",
            "Mostly clear: sensible names and structure, a few spots that need a second read.",
            "Clear: descriptive names, short focused functions, intent evident at each step.",
            "Exemplary: reads like good prose; every name and block says exactly what it does.",
        ),
    ),
    Dimension(
        "architecture",
        "Are responsibilities well divided, with sensible boundaries and no needless coupling?",
        (
            "No structure: everything in one place, or the change breaks the existing design.",
            "Poor: responsibilities mixed, heavy duplication, hidden global state or tight coupling.",
            "Weak: works, but logic sits in the wrong layer or is duplicated; abstractions leak.",
            "Sound: reasonable division of responsibilities, some duplication or coupling remains.",
            "Good: cohesive units, clear interfaces, fits and respects the existing design.",
            "Excellent: minimal, well-placed abstractions; easy to extend and to test in isolation.",
        ),
    ),
    Dimension(
        "robustness",
        "Does the code handle invalid input, edge cases and failures deliberately?",
        (
            "Fragile: crashes or corrupts data on ordinary input; errors swallowed or ignored.",
            "Brittle: obvious edge cases (empty, None, large, malformed) unhandled.",
            "Partial: some checks, but inconsistent; broad excepts or silent failures remain.",
            "Adequate: common edge cases and errors handled; a few gaps in rarer paths.",
            "Robust: inputs validated at boundaries, specific errors with context, resources released.",
            "Hardened: every failure mode considered and handled or reported precisely.",
        ),
    ),
    Dimension(
        "idiomaticity",
        "Does the code use the language and its standard library the way experienced users do?",
        (
            "Alien: fights the language; reimplements basic built-ins badly.",
            "Unidiomatic: patterns from another language, manual loops where built-ins exist.",
            "Mixed: some idioms, some awkward constructs or misuse of the standard library.",
            "Idiomatic for the most part, with minor departures.",
            "Idiomatic: standard library and language features used well; follows common conventions.",
            "Exemplary: the natural, modern way to write it in this language, nothing superfluous.",
        ),
    ),
)

DELIVERABLES: tuple[Dimension, ...] = (
    Dimension(
        "accuracy",
        "Is what the document states true of the code, the tests and the problem?",
        (
            "Wrong: the central claims are false or about a different problem.",
            "Mostly wrong: the root cause or key facts are misidentified.",
            "Partly right: the right area, but important claims are wrong or unsupported.",
            "Largely right: the main claims hold; some details are imprecise or unsupported.",
            "Accurate: claims hold and are supported by evidence (code, tests, logs).",
            "Precise: every claim is correct, specific and verifiable.",
        ),
    ),
    Dimension(
        "clarity",
        "Can the intended reader follow it on one reading?",
        (
            "Incomprehensible: no discernible structure or meaning.",
            "Confusing: disorganised, jargon without explanation, contradictions.",
            "Hard going: the point is there but buried; poor ordering.",
            "Clear enough: organised, with some wordiness or vague passages.",
            "Clear: well structured, concise, terms explained.",
            "Exemplary: the shortest path to understanding; nothing to cut.",
        ),
    ),
    Dimension(
        "completeness",
        "Does it cover everything the deliverable asks for?",
        (
            "Empty in substance: none of the required content.",
            "Fragmentary: most required parts missing.",
            "Partial: some required parts present, others missing.",
            "Mostly complete: required parts present, some thin.",
            "Complete: every required part covered adequately.",
            "Thorough: every part covered, including the non-obvious consequences.",
        ),
    ),
    Dimension(
        "actionability",
        "Could a reader act on it (fix, decide, operate) without asking the author?",
        (
            "Nothing to act on.",
            "Vague: only generic advice.",
            "Some concrete steps, but key ones missing or ambiguous.",
            "Actionable with some guesswork.",
            "Concrete next steps, owners or commands where relevant.",
            "Immediately actionable: precise steps, verification and follow-ups.",
        ),
    ),
)

STYLE_RULES: tuple[str, ...] = (
    "No penalty for a choice between equally valid styles: functional or imperative, classes or modules "
    "of functions, verbose or concise (map/filter/reduce or loops, a named result or a direct return, one "
    "conditional expression or an if/else). Judge the code on the terms of the style it chose: the same "
    "code written in either style gets the same levels.",
    "Penalise inconsistent style within the change: readability. Compare the submission's code with itself, "
    "not with a preferred style: naming conventions that switch for the same kind of name (snake_case and "
    "camelCase functions or variables), quote delimiters, string formatting idioms (f-strings, str.format, "
    "%) or indentation that change without reason.",
    "Penalise cleverness that hides intent: readability. For example comprehensions nested three for-clauses "
    "deep, chained conditional expressions, a lambda bound to a name and called as a function, `x and y or z` "
    "used to pick a value, bit tricks standing in for arithmetic (`-~x`, `x >> 1` for halving, the XOR swap), "
    "`__import__`, an assignment expression in a comprehension's condition that leaks a variable to the code "
    "after it, or a one-line statement packing many decisions: tricks a maintainer must decode to see what "
    "the code does.",
    "Penalise comments that say what the code does instead of why: readability. A comment restating the line "
    "under it (`# add one to i` above `i += 1`) is noise; one giving the reason, a constraint, an invariant or "
    "a reference earns its line. Penalise files organised against their content: architecture. Unrelated "
    "responsibilities put in one module, a helper kept far from the only module that uses it, or a new file "
    "whose name says nothing of what it holds.",
    "Penalise code copied instead of reused: architecture. A starter function duplicated with its names "
    "changed instead of called, or code taken from a source that requires attribution without a comment or "
    "a document naming that source.",
)
"""Seed 000's style rules, given with the code-quality rubric to every judge (docs/llm-judges.md); the
offline judges apply the same rules (``judges/quality/_style.py``, ``judges/trajectory/architecture.py``),
except file organisation, which only the LLM judges read ("comments explain why, not what" offline:
``_style.what_comments``)."""

RUBRICS: Mapping[str, tuple[Dimension, ...]] = {"code_quality": CODE_QUALITY, "deliverables": DELIVERABLES}
LEVEL_POINTS = 20.0
"""A level 0-5 maps to 0-100 by ×20."""


def render(dimensions: tuple[Dimension, ...]) -> str:
    """The rubric as prompt text, in the order given (the caller shuffles); a code-quality rubric ends
    with the style rules that hold across its dimensions."""
    blocks = []
    for d in dimensions:
        lines = [f"## {d.name}", d.question]
        lines += [f"  {level}: {text}" for level, text in enumerate(d.levels)]
        blocks.append("\n".join(lines))
    if {d.name for d in dimensions} & {d.name for d in CODE_QUALITY}:
        blocks.append("\n".join(["## style rules (every dimension)", *(f"- {rule}" for rule in STYLE_RULES)]))
    return "\n\n".join(blocks)
