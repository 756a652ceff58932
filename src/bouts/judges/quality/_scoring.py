"""Shared scoring of the three quality judges: hits → four dimension scores → one explained verdict.

Each judge turns its own signals into ``Hit``s, each charged to one dimension with a raw cost in
dimension points. Most costs are *densities*: ``weight × 100 / max(judged lines, MIN_LINES)`` per
hit, so ten findings in 1,000 changed lines cost what one costs in 100. The floor keeps a three-line
fix from losing half a dimension over a single nit. Then, per dimension: each rule is capped
(``RULE_CAP`` points, so one noisy rule cannot sink a dimension on its own), the dimension is
``100 − Σ`` with a floor at 0, and the judge's score is the mean of the four (25% each).

Every hit becomes a ``Finding`` whose ``points`` are what it took from the *judge's* 0-100 score
(its capped dimension points × 0.25), so the findings of a verdict sum to ``100 − score``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bouts.judges.base import Finding, JudgeInput, Verdict
from bouts.judges.quality._changes import ChangeSet, NoteKind, collect
from bouts.languages import language_of
from bouts.scoring.explain import Explained, NotScored, fmt
from bouts.scoring.withholding import withheld

Dimension = Literal["readability", "architecture", "robustness", "idiomaticity"]
DIMENSIONS: tuple[Dimension, ...] = ("readability", "architecture", "robustness", "idiomaticity")
"""Challenge languages the offline quality judges read (JavaScript and TypeScript with tree-sitter)."""
MIN_LINES = 40
"""Density denominator floor, in judged lines."""
RULE_CAP = 50.0
"""Most dimension points one rule can take."""

# What an unanalysable file costs, whatever the judge: a file that does not parse is broken code;
# an oversized one cannot be judged and must not be a way to hide code from the judges.
NOTE_COSTS: Mapping[NoteKind, tuple[Dimension, float]] = {
    "syntax-error": ("robustness", 40.0),
    "too-large": ("architecture", 40.0),
    "not-utf8": ("idiomaticity", 10.0),
    "skipped": ("readability", 0.0),
    "truncated": ("architecture", 0.0),
    "not-analysed": ("architecture", 40.0),
}


@dataclass(frozen=True)
class Hit:
    """One observation of a rule, before caps: what it would cost and where it was seen."""

    rule: str
    dimension: Dimension
    message: str
    raw: float
    """Dimension points before caps (already density-scaled where the rule is a density)."""
    file: str | None = None
    line: int | None = None
    severity: str | None = None


def per_line(weight: float, changes: ChangeSet, file: str | None = None, line: int | None = None) -> float:
    """The cost of one hit of a density rule of ``weight`` (points per hit per 100 judged lines),
    scaled by the submission's share of the line (``ChangeSet.share``) when a location is given."""
    return weight * 100.0 / max(changes.judged_lines, MIN_LINES) * changes.share(file, line)


def prepare(inp: JudgeInput) -> ChangeSet | NotScored:
    """The judged change set of a submission, or why there is nothing to judge."""
    language = language_of(inp.challenge)
    if not all(language.has(role) for role in ("quality.changes", "quality.metrics", "quality.structure")):
        return NotScored(f"the offline quality judges do not read {language.name} yet")
    changes = collect(inp.view, language.name)
    if not changes.changed and not any(NOTE_COSTS[n.kind][1] for n in changes.notes):
        return withheld("the submission changed no code", (changes.summary(),))  # SPEC §6: scores 0
    return changes


def note_hits(changes: ChangeSet) -> list[Hit]:
    """Hits for files the judges could not analyse (the same for every judge)."""
    hits = []
    for note in changes.notes:
        dimension, cost = NOTE_COSTS[note.kind]
        hits.append(Hit(f"file.{note.kind}", dimension, f"{note.file}: {note.message}", cost, note.file, note.line))
    return hits


def judge_changed_code(
    judge: str,
    inp: JudgeInput,
    rules: Callable[[ChangeSet], list[Hit]],
    versions: Callable[[], Mapping[str, str]],
    caps: Mapping[str, float] | None = None,
) -> Verdict:
    """The shared shape of the offline quality judges: collect the changed code (or say why there is
    nothing to judge), add the hits for unreadable files to the judge's own ``rules``, explain."""
    changes = prepare(inp)
    if not isinstance(changes, ChangeSet):
        return Verdict(judge, "code_quality", changes)
    return build_verdict(judge, changes, note_hits(changes) + rules(changes), versions(), caps)


def build_verdict(
    judge: str,
    changes: ChangeSet,
    hits: Sequence[Hit],
    versions: Mapping[str, str],
    caps: Mapping[str, float] | None = None,
) -> Verdict:
    """Cap, sum and explain ``hits`` into the judge's verdict (see the module docstring)."""
    caps = caps or {}
    by_dim_rule: dict[tuple[Dimension, str], list[Hit]] = defaultdict(list)
    for hit in hits:
        by_dim_rule[(hit.dimension, hit.rule)].append(hit)

    scale: dict[tuple[Dimension, str], float] = {}
    rule_points: dict[tuple[Dimension, str], float] = {}
    for key, group in by_dim_rule.items():
        raw = sum(h.raw for h in group)
        capped = min(raw, caps.get(key[1], RULE_CAP))
        rule_points[key] = capped
        scale[key] = capped / raw if raw else 0.0

    math = [changes.summary(),
            f"density: weight × 100 / max({changes.judged_lines}, {MIN_LINES}) judged lines per finding; "
            f"each rule capped at {fmt(RULE_CAP)} points unless stated"]
    dimensions: dict[str, float] = {}
    dim_scale: dict[Dimension, float] = {}
    for dim in DIMENSIONS:
        rules = sorted(((rule, pts) for (d, rule), pts in rule_points.items() if d == dim and pts > 0),
                       key=lambda item: -item[1])
        taken = sum(pts for _, pts in rules)
        dim_scale[dim] = 100.0 / taken if taken > 100 else 1.0
        value = max(0.0, 100.0 - taken)
        dimensions[dim] = round(value, 2)
        terms = " ".join(f"− {fmt(round(pts, 2))} ({rule} ×{len(by_dim_rule[(dim, rule)])})" for rule, pts in rules)
        math.append(f"{dim} = {'max(0, ' if taken > 100 else ''}100 {terms}{')' if taken > 100 else ''}"
                    f" = {fmt(round(value, 2))}" if rules else f"{dim} = 100 (nothing found)")
    score = sum(dimensions.values()) / len(DIMENSIONS)
    math.append(f"{judge} = ({' + '.join(fmt(dimensions[d]) for d in DIMENSIONS)}) / 4 = {fmt(round(score, 2))}")

    findings = tuple(
        Finding(rule=h.rule, message=h.message, file=h.file, line=h.line, severity=h.severity,
                dimension=h.dimension,
                points=round(h.raw * scale[(h.dimension, h.rule)] * dim_scale[h.dimension] * 0.25, 4))
        for h in sorted(hits, key=lambda h: (h.file or "", h.line or 0, h.rule))
    )
    return Verdict(judge=judge, component="code_quality", score=Explained(round(score, 2), tuple(math)),
                   findings=findings, dimensions=dimensions, versions=dict(versions))
