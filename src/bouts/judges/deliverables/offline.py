"""The offline deliverables judge ("deliverables-offline"): reads each deliverable the challenge asks
for and scores it with the rubric of ``_rubric`` (SPEC §1: accuracy 40, clarity 25, completeness 20,
actionability 15; missing or placeholder → 0; the component is the mean over required documents).

An offline judge cannot verify truth, but it can check the document against the evidence. Accuracy is
60% the share of the challenge's ``expect`` facts the document states and 40% how well the files,
functions and tests it names match what the submission's diff against the starter changed and the
tests that exercise it (``_evidence``, ``_rubric.evidence_accuracy``); 100% the latter when the
challenge lists no facts. Names that exist nowhere are errors. See docs/quality-judges.md.
"""

from __future__ import annotations

import re

from bouts.judges.base import JUDGES, Finding, Judge, JudgeInput, Verdict
from bouts.judges.deliverables import _rubric as rubric
from bouts.judges.deliverables._evidence import CodeEvidence, gather
from bouts.judges.deliverables._text import parse_markdown
from bouts.models.challenge import Challenge, Deliverable
from bouts.scoring import components
from bouts.scoring.explain import Explained, fmt
from bouts.scoring.placeholder import placeholder_reason

NAME = "deliverables-offline"
_NAME = re.compile(r"[A-Za-z_]\w*")


def vocabulary(challenge: Challenge, ev: CodeEvidence) -> frozenset[str]:
    """Words the reader already has: the task's description and title, and the code's names."""
    spec = challenge.spec
    return frozenset(_NAME.findall(f"{spec.title}\n{spec.description}")) | ev.names


def score_document(
    spec: Deliverable, text: str, ev: CodeEvidence, share: float, words: frozenset[str] = frozenset()
) -> tuple[Explained, dict[str, float], list[Finding]]:
    """One present, non-placeholder deliverable: its explained score, sub-scores and findings.

    ``share`` is the document's weight in the component (1 / number of required documents), so a
    finding's points are what it cost the component.
    """
    doc = parse_markdown(text)
    subs = {
        "accuracy": rubric.accuracy(doc, spec.expect, ev),
        "clarity": rubric.clarity(doc, words),
        "completeness": rubric.completeness(doc, spec.kind),
        "actionability": rubric.actionability(doc),
    }
    values = {k: round(s.value, 2) for k, s in subs.items()}
    score = components.deliverable(values, name=spec.path)
    findings = [
        Finding(rule=e.rule, message=e.message, file=spec.path, line=e.line, dimension=dim,
                points=round(e.lost * components.DELIVERABLE_WEIGHTS[dim] * share, 4))
        for dim, sub in subs.items() for e in sub.evidence
    ]
    math = tuple(f"{spec.path}: {s.summary}" for s in subs.values()) + score.math
    return Explained(score.value, math), values, findings


class OfflineDeliverablesJudge:
    """Expected facts, structure, sections and concrete references of each written deliverable."""

    name = NAME
    component = "deliverables"
    needs_run = True
    """Sits after the tests: the tests that did not pass are evidence a document may cite."""

    def judge(self, inp: JudgeInput) -> Verdict:
        specs = inp.challenge.spec.deliverables
        required = [d for d in specs if d.required]
        share = 1 / len(required) if required else 0.0
        ev = gather(inp.challenge, inp.view, inp.run)
        words = vocabulary(inp.challenge, ev)
        documents: list[Explained] = []
        findings: list[Finding] = []
        dimensions: dict[str, list[float]] = {k: [] for k in components.DELIVERABLE_WEIGHTS}
        notes: list[str] = []
        for spec in specs:
            text, note = inp.view.document(spec.path)
            weight = share if spec.required else 0.0
            if note:
                notes.append(f"{spec.path}: {note}")
            reason = placeholder_reason(text) if text is not None else None
            if text is None or reason is not None:
                why = "missing" if text is None else "placeholder"
                findings.append(Finding(rule=f"deliverables.{why}", file=spec.path, points=round(100 * weight, 4),
                                        message=f"{spec.path}: {note if text is None else reason} → 0"))
                result = components.deliverable_absent(spec.path, why)
                values = dict.fromkeys(components.DELIVERABLE_WEIGHTS, 0.0)
            else:
                result, values, doc_findings = score_document(spec, text, ev, weight, words)
                findings += doc_findings
            if spec.required:
                documents.append(result)
                for k, v in values.items():
                    dimensions[k].append(v)
            else:
                notes.append(f"{spec.path} (optional, not in the mean): {fmt(result.value)}")
        total = components.deliverables(documents)
        if isinstance(total, Explained) and notes:
            total = Explained(total.value, total.math + tuple(notes))
        return Verdict(
            judge=self.name, component="deliverables", score=total, findings=tuple(findings),
            dimensions={k: round(sum(v) / len(v), 2) for k, v in dimensions.items() if v},
            versions={"deliverables-offline rules": "2026.1"},
        )


@JUDGES.register(NAME)
def make_offline_deliverables_judge() -> Judge:
    """Offline deliverables judge: expected facts, structure, sections and references of each document."""
    return OfflineDeliverablesJudge()
