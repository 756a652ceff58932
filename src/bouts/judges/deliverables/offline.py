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
from dataclasses import dataclass

from bouts.judges.base import JUDGES, Finding, Judge, JudgeInput, Verdict
from bouts.judges.deliverables import _rubric as rubric
from bouts.judges.deliverables._evidence import CodeEvidence, gather
from bouts.judges.deliverables._provenance import Span, copied_spans, cut, injection_spans, line_of, shingles
from bouts.judges.deliverables._text import parse_markdown
from bouts.models.challenge import Challenge, Deliverable
from bouts.models.view import SubmissionView
from bouts.scoring import components
from bouts.scoring.explain import Explained, fmt
from bouts.scoring.placeholder import placeholder_reason

NAME = "deliverables-offline"
_NAME = re.compile(r"[A-Za-z_]\w*")
INJECTION = "deliverables.judge-injection"
COPIED = "deliverables.copied-description"
PUBLIC_DOCUMENTS = (".md", ".markdown", ".rst", ".txt")
"""The starter's documents (its README) are part of what the agent was given, like the description."""


def public_text(challenge: Challenge, view: SubmissionView | None = None) -> list[str]:
    """What the agent was shown of the task: the title and description (the prompt ``bouts.agents``
    writes is made of them) and the starter's documents."""
    texts = [challenge.spec.title, challenge.spec.description]
    if view is not None:
        texts += [f.text for f in view.judged_starter if f.rel.lower().endswith(PUBLIC_DOCUMENTS) and f.text]
    return [t for t in texts if t and t.strip()]


@dataclass(frozen=True)
class Screened:
    """A document with what earns nothing cut out: text addressed to a judge, text copied from the task."""

    text: str
    """What the rubric reads."""
    injected: tuple[Span, ...]
    copied: tuple[Span, ...]
    """The copied passages cut (beyond the quotes a document's own words allow)."""
    copied_share: float
    """Share of the document's words cut as copies."""


QUOTE_ALLOWANCE = 0.25
"""Copied words a document may keep, as a share of its own words: an analysis that quotes the
requirement it explains ("by points, then goal difference, then goals scored") is not padding. The
shortest copied passages are kept first; a document of copies alone has no own words, so keeps none."""


def screen(text: str, public: frozenset[tuple[str, ...]]) -> Screened:
    """Cut the spans addressed to a judge, then the spans copied from the task's public text beyond
    ``QUOTE_ALLOWANCE``."""
    injected = injection_spans(text)
    rest = cut(text, injected)
    copied = copied_spans(rest, public)
    sizes = [len(rest[c.start:c.end].split()) for c in copied]
    prose = [ln for ln in rest.splitlines() if not ln.lstrip().startswith("#")]
    own = max(0, sum(len(ln.split()) for ln in prose) - sum(sizes))
    budget = QUOTE_ALLOWANCE * own
    cut_out: list[Span] = []
    for size, span in sorted(zip(sizes, copied, strict=True), key=lambda p: (p[0], p[1].start)):
        if size <= budget:
            budget -= size
        else:
            cut_out.append(span)
    cut_out.sort(key=lambda sp: sp.start)
    total = (own + sum(sizes)) or 1
    share = sum(len(rest[c.start:c.end].split()) for c in cut_out) / total
    return Screened(cut(rest, cut_out), tuple(injected), tuple(cut_out), min(1.0, share))


def screen_findings(path: str, text: str, screened: Screened) -> list[Finding]:
    """The scorecard's account of what was cut: each injected span (flagged), and the copied share."""
    out = [Finding(rule=INJECTION, file=path, line=line_of(text, s.start), severity="high", flag=True,
                   message=f"{path}: text addressed to the judge, not the reader ({s.why}): "
                           f"{' '.join(text[s.start:s.end].split())[:120]!r}; it earns nothing")
           for s in screened.injected]
    if screened.copied:
        rest = cut(text, screened.injected)
        first = screened.copied[0]
        out.append(Finding(rule=COPIED, file=path, line=line_of(rest, first.start), message=(
            f"{path}: {fmt(round(100 * screened.copied_share))}% of its words ({len(screened.copied)} passage(s)) "
            f"repeat the challenge's description beyond what its own words quote; they earn nothing (first: "
            f"{' '.join(rest[first.start:first.end].split())[:80]!r})")))
    return out


def has_substance(spec: Deliverable, text: str, ev: CodeEvidence) -> bool:
    """A short document still has substance when it states one of the challenge's expected facts
    (the challenge lists some) or names a file, function or test the change is about (it lists none):
    SPEC §1, scored by the rubric, never as a placeholder."""
    doc = parse_markdown(text)
    if spec.expect:  # the challenge says what a correct account states: one of its facts, at least in part
        return rubric.fact_accuracy(doc, spec.expect, ev).value > 0
    return any(c.verdict == "match" for c in rubric.citations(doc, ev))


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
        public = shingles(public_text(inp.challenge, inp.view))
        documents: list[Explained] = []
        findings: list[Finding] = []
        dimensions: dict[str, list[float]] = {k: [] for k in components.DELIVERABLE_WEIGHTS}
        notes: list[str] = []
        for spec in specs:
            text, note = inp.view.document(spec.path)
            weight = share if spec.required else 0.0
            if note:
                notes.append(f"{spec.path}: {note}")
            screened = screen(text, public) if text is not None else None
            if text is not None and screened is not None:
                findings += screen_findings(spec.path, text, screened)
            reason = _empty_reason(spec, text, screened, ev)
            if text is None or screened is None or reason is not None:
                why = "missing" if text is None else "placeholder"
                findings.append(Finding(rule=f"deliverables.{why}", file=spec.path, points=round(100 * weight, 4),
                                        message=f"{spec.path}: {note if text is None else reason} → 0"))
                result = components.deliverable_absent(spec.path, why)
                values = dict.fromkeys(components.DELIVERABLE_WEIGHTS, 0.0)
            else:
                result, values, doc_findings = score_document(spec, screened.text, ev, weight, words)
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
            versions={"deliverables-offline rules": "2026.2"},
        )


def _empty_reason(spec: Deliverable, text: str | None, screened: Screened | None, ev: CodeEvidence) -> str | None:
    """Why a present document scores 0: a placeholder, or nothing left of its own once copied and
    injected text is cut; None when the rubric scores it (a short document with substance included)."""
    if text is None or screened is None:
        return None
    reason = placeholder_reason(screened.text)
    if reason is None or has_substance(spec, screened.text, ev):
        return None
    cut_out = []
    if screened.copied:
        cut_out.append(f"{fmt(round(100 * screened.copied_share))}% copied from the challenge's description")
    if screened.injected:
        cut_out.append(f"{len(screened.injected)} passage(s) addressed to the judge")
    return reason + (f" once cut: {', '.join(cut_out)}" if cut_out else "")


@JUDGES.register(NAME)
def make_offline_deliverables_judge() -> Judge:
    """Offline deliverables judge: expected facts, structure, sections and references of each document."""
    return OfflineDeliverablesJudge()
