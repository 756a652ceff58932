"""The LLM judge: builds the prompt from the submission, asks, validates, and returns a verdict.

Code quality: one call over the diff, the comment-free view and the test evidence; four levels 0-5,
each ×20, weighted 25 each. Deliverables: one call per document the challenge asks for; a missing or
placeholder document scores 0 without a call (SPEC §1), the rest go through
``bouts.scoring.components.deliverable``. An answer that stays malformed or refused after
``max_answer_retries`` re-asks makes the verdict *not scored*, with the reason, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pydantic import SecretStr

from bouts.judges.base import Finding, JudgeInput, Verdict
from bouts.judges.llm import evidence
from bouts.judges.llm.calls import (
    Deadline,
    LLMUnavailableError,
    PanelRuntime,
    Usage,
    cache_get,
    cache_key,
    cache_put,
    call,
)
from bouts.judges.llm.config import LLMJudgeConfig
from bouts.judges.llm.prompt import PROMPT_VERSION, Answer, Message, Prompt, build_prompt, parse_answer, reask
from bouts.judges.llm.providers import LLM_PROVIDERS, ChatRequest, Provider
from bouts.judges.llm.rubric import CODE_QUALITY, DELIVERABLES, LEVEL_POINTS
from bouts.judges.llm.strip import strip_markup_comments
from bouts.judges.llm.usage import STATUS_UNAVAILABLE, STATUS_UNUSABLE
from bouts.scoring import components
from bouts.scoring.explain import Explained, NotScored, fmt
from bouts.scoring.placeholder import charge_follow_ups, placeholder_reason
from bouts.scoring.withholding import withheld

QUALITY_WEIGHT = 0.25
"""SPEC §1: readability, architecture, robustness, idiomaticity, 25 each."""
DELIVERABLE_SHARES = {d: w * 100 for d, w in components.DELIVERABLE_WEIGHTS.items()}
Dims = dict[str, float]


@dataclass(frozen=True)
class Scored:
    """One validated answer and the prompt order it was given in."""

    answer: Answer
    dimensions: tuple[str, ...]


class LLMJudge:
    """A ``Judge`` backed by one model. Thread-safe: ``judge`` keeps its state in locals."""

    needs_run = True
    """Seated after the test run, so the test evidence is in the prompt."""

    def __init__(self, config: LLMJudgeConfig, api_key: SecretStr | None, runtime: PanelRuntime) -> None:
        self.config = config
        self.name = config.judge_name
        self.component = config.component
        self._runtime = runtime
        self._provider: Provider = LLM_PROVIDERS.create(config.provider)(config, api_key)

    def judge(self, inp: JudgeInput) -> Verdict:
        """The verdict. An endpoint that gives no answer (down, hung past the deadline, misconfigured)
        makes it *not scored* with the reason, keeping what was spent; the scorecard turns that
        status into a ``judge_unavailable`` flag (``usage.usage_flags``)."""
        usage = Usage()
        deadline = self._deadline(inp)
        try:
            if self.component == "code_quality":
                score, findings, dims = self._code_quality(inp, usage, deadline)
            else:
                score, findings, dims = self._deliverables(inp, usage, deadline)
        except LLMUnavailableError as exc:
            why = f"{self.name} could not run (infrastructure, not the agent's fault): {exc.describe()}"
            return Verdict(self.name, self.component, NotScored(why),
                           versions=self._versions(inp, usage, STATUS_UNAVAILABLE))  # fmt: skip
        status = STATUS_UNUSABLE if usage.unusable else "not scored" if isinstance(score, NotScored) else "scored"
        return Verdict(self.name, self.component, score, tuple(findings), dims, self._versions(inp, usage, status))

    def _deadline(self, inp: JudgeInput) -> Deadline:
        """The earlier of this verdict's cap and the panel's budget on this scorecard."""
        cfg = self.config
        own = Deadline(self._runtime.clock() + cfg.max_total_s, f"the {cfg.max_total_s:g} s cap")
        panel = self._runtime.budget_for(inp)
        return panel if panel is not None and panel.at < own.at else own

    # -- code quality ------------------------------------------------------------------------------

    def _code_quality(
        self, inp: JudgeInput, usage: Usage, deadline: Deadline
    ) -> tuple[Explained | NotScored, list[Finding], Dims]:
        cfg = self.config
        files = evidence.changed_files(inp.view)
        if not files:
            return withheld("the submission changed no file of the starter: no code to judge"), [], {}  # SPEC §6: 0
        blocks = {
            "DIFF (unified diff against starter/)": evidence.diff_view(files, cfg.max_diff_chars),
            "COMMENT-FREE VIEW (changed files, comments and docstrings removed)":
                evidence.comment_free_view(files, cfg.max_view_chars),
            "TEST EVIDENCE": evidence.run_evidence(inp.run),
        }
        prompt = build_prompt(subject="code quality", dimensions=CODE_QUALITY, blocks=blocks,
                              seed=inp.seed, judge=self.name)
        scored = self._ask(prompt, inp.seed, usage, deadline)
        if isinstance(scored, NotScored):
            return scored, [], {}
        dims = {d: scored.answer.scores[d].score * LEVEL_POINTS for d in scored.dimensions}
        value = sum(QUALITY_WEIGHT * v for v in dims.values())
        terms = " + ".join(f"0.25×{name}({fmt(v)})" for name, v in sorted(dims.items()))
        math = (f"levels 0-5 ×{fmt(LEVEL_POINTS)}: code_quality = {terms} = {fmt(value)}",)
        return Explained(value, math), _findings(scored, "code_quality", {d: QUALITY_WEIGHT * 100 for d in dims}), dims

    # -- deliverables ------------------------------------------------------------------------------

    def _deliverables(
        self, inp: JudgeInput, usage: Usage, deadline: Deadline
    ) -> tuple[Explained | NotScored, list[Finding], Dims]:
        cfg = self.config
        documents: list[Explained] = []
        findings: list[Finding] = []
        sums: dict[str, float] = {}
        judged = 0
        context = None
        for spec in inp.challenge.spec.deliverables:
            text, _ = inp.view.document(spec.path)
            if text is None:
                if spec.required:
                    documents.append(components.deliverable_absent(spec.path, "missing"))
                continue
            if placeholder_reason(text):
                documents.append(components.deliverable_absent(spec.path, "placeholder"))
                continue
            if context is None:  # the code context is the same for every document: read it once
                files = evidence.changed_files(inp.view)
                context = evidence.diff_view(files, cfg.max_diff_chars // 2)
            document = strip_markup_comments(text)
            blocks = {
                f"DOCUMENT {spec.path} (kind: {spec.kind})": evidence.cap_text(document, cfg.max_view_chars),
                "CHANGES (unified diff against starter/)": context,
                "TEST EVIDENCE": evidence.run_evidence(inp.run),
            }
            prompt = build_prompt(subject=f"deliverable ({spec.kind})", dimensions=DELIVERABLES, blocks=blocks,
                                  seed=inp.seed, judge=f"{self.name}:{spec.path}")
            scored = self._ask(prompt, inp.seed, usage, deadline)
            if isinstance(scored, NotScored):
                return NotScored(f"{spec.path}: {scored.reason}"), findings, {}
            subs = {d: scored.answer.scores[d].score * LEVEL_POINTS for d in scored.dimensions}
            # A follow-up TODO line in a real document costs completeness only, as offline (SPEC §1).
            given = subs["completeness"]
            subs["completeness"], charged = charge_follow_ups(given, text)
            document_score = components.deliverable(subs, name=spec.path)
            if charged:
                note = (f"{spec.path}: completeness {fmt(given)} − {fmt(sum(c[2] for c in charged))} for "
                        f"{len(charged)} follow-up line(s) left open = {fmt(subs['completeness'])}")
                document_score = Explained(document_score.value, (note, *document_score.math))
            documents.append(document_score)
            findings += _findings(scored, "deliverables", DELIVERABLE_SHARES, file=spec.path)
            findings += [Finding(rule="deliverables.follow_up", file=spec.path, line=n, dimension="completeness",
                                 message=f"follow-up left open: {line[:80]!r} (completeness −{fmt(lost)})",
                                 points=lost * DELIVERABLE_SHARES["completeness"] / 100)
                         for n, line, lost in charged]  # fmt: skip
            judged += 1
            for d, v in subs.items():
                sums[d] = sums.get(d, 0.0) + v
        # The component is the mean over documents, so each document's findings carry 1/n of its points.
        findings = [replace(f, points=f.points / len(documents)) for f in findings]
        dims = {d: v / judged for d, v in sums.items()} if judged else {}
        return components.deliverables(documents), findings, dims

    # -- asking ------------------------------------------------------------------------------------

    def _ask(self, prompt: Prompt, seed: int, usage: Usage, deadline: Deadline) -> Scored | NotScored:
        """The validated answer to ``prompt``: from the cache, or asked (and re-asked) by ``deadline``."""
        cfg = self.config
        request_seed = cfg.seed if cfg.seed is not None else seed
        key = cache_key(cfg, prompt, request_seed)
        cached = cache_get(self._runtime, key)
        if cached is not None:
            answer = parse_answer(cached, prompt.dimensions)
            if isinstance(answer, Answer):
                usage.cache_hits += 1
                return Scored(answer, prompt.dimensions)
        messages = prompt.messages
        problems: list[str] = []
        for _ in range(1 + cfg.max_answer_retries):
            completion = call(self._provider, ChatRequest(prompt.system, messages, request_seed), cfg,
                              self._runtime, usage, deadline)
            if completion.refusal:
                problems.append(f"refused: {completion.refusal[:200]}")
                continue  # a refusal is re-asked as it was: the conversation has nothing to correct
            answer = parse_answer(completion.text, prompt.dimensions)
            if isinstance(answer, Answer):
                cache_put(self._runtime, key, cfg, completion.text)
                return Scored(answer, prompt.dimensions)
            problems.append(answer)
            messages = prompt.messages + (Message("assistant", completion.text[:4000]), reask(answer))
        usage.unusable = True
        return NotScored(f"{self.name} gave no usable answer in {len(problems)} attempts: " + "; ".join(problems))

    def _versions(self, inp: JudgeInput, usage: Usage, status: str) -> dict[str, str]:
        """Reproducibility and the cost record, as strings (``Verdict.versions`` is str → str)."""
        cfg = self.config
        return {
            "llm.provider": cfg.provider,
            "llm.model": cfg.model,
            "llm.prompt_version": PROMPT_VERSION,
            "llm.temperature": "provider default" if cfg.temperature is None else f"{cfg.temperature:g}",
            "llm.seed": str(cfg.seed if cfg.seed is not None else inp.seed),
            "llm.requests": str(usage.requests),
            "llm.cache_hits": str(usage.cache_hits),
            "llm.tokens_in": str(usage.tokens_in),
            "llm.tokens_out": str(usage.tokens_out),
            "llm.cost_usd": f"{usage.cost_usd:.6f}",
            "llm.status": status,
        }


def _findings(scored: Scored, component: str, weights: dict[str, float], file: str | None = None) -> list[Finding]:
    """The judge's rationale per dimension (points it took, from the dimension's weight) and its
    cited evidence (informational, 0 points). ``weights`` are each dimension's share of 100."""
    out = [Finding(f"llm.{component}.reasoning", scored.answer.reasoning[:2000], file=file)]
    for d in scored.dimensions:
        a = scored.answer.scores[d]
        lost = weights[d] * (5 - a.score) / 5
        out.append(Finding(f"llm.{component}.{d}", f"{a.score}/5: {a.rationale[:1000]}", file=file,
                           points=lost, dimension=d))
        out += [
            Finding(f"llm.{component}.{d}.evidence", e.note[:500], file=e.file or file, line=e.line, dimension=d)
            for e in a.evidence
        ]
    return out
