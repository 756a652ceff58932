"""The host's side of observed ``node:test`` runs: rewrite the workspace's test files before the
sandbox starts, then decide every reported pass from its observations (``_decide``).

A result the test process reports as passed stays passed only when the host's check holds; the
test process's own "pass" is necessary, never sufficient (docs/javascript.md, "Decided on the host").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bouts.models.challenge import Suite
from bouts.models.results import AssertionCount, Outcome
from bouts.runner._channel import Record
from bouts.runner._verdicts import counts_by_suite
from bouts.runner.js._decide import check_external, check_inline, entries
from bouts.runner.js._externalise import Rewrite, rewrite


def externalise_files(workspace: Path, file_suite: Mapping[str, Suite], *, checked: bool,
                      seed: int | None = None) -> dict[str, Rewrite]:  # fmt: skip
    """Rewrite every test file of ``file_suite`` in ``workspace`` in place (``checked``: the text whose
    runtime also runs the original assertions); the rewrites by file. A file that cannot be parsed
    stays as written (its tests are then decided in the sandbox, and counted as not externalised)."""
    plans: dict[str, Rewrite] = {}
    for rel in sorted(file_suite):
        path = workspace / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        plan = rewrite(text, rel, seed)
        if plan is None:
            continue
        path.write_text(plan.checked if checked else plan.graded, encoding="utf-8")
        plans[rel] = plan
    return plans


def decide_js(
    records: Sequence[Record],
    plans: Mapping[str, Rewrite],
    golden: Mapping[str, Sequence[object]] | None,
    hidden: frozenset[str] = frozenset(),
    findings: list[str] | None = None,
) -> list[Record]:
    """The host's verdicts (pure): with ``golden`` (a graded run with a reference), each reported pass
    is held to the reference's observations of the same test; without, to its own checked run. A
    hidden file's test says only that it did not hold (its values are the reference's).

    ``findings`` (graded runs) collects tampering evidence: node reported a pass for a test whose
    body cannot have passed — a plain call of its body raised (the exception left the body), or the
    body did not reach its end — so the process's reporting was rewritten."""
    out: list[Record] = []
    for rec in records:
        plan = plans.get(rec.id.split("::", 1)[0]) if rec.kind == "result" else None
        if plan is None or rec.outcome is not Outcome.PASSED:
            out.append(rec)
            continue
        if not rec.has_obs:
            why: str | None = "no observations reached the host"
        elif findings is not None and (lie := _forged_pass(rec.occurrences, plan)) is not None:
            findings.append(f"the test process reported a pass for {rec.id}, whose body {lie} "
                            "(verdicts are being forged)")  # fmt: skip
            why = f"the body {lie}"
        elif golden is None:
            why = check_inline(rec.occurrences, plan.sites, needs_end=plan.unwrapped == 0)
        elif (gold := golden.get(rec.id)) is None:
            why = "the reference solution does not pass this test"
        else:
            why = check_external(rec.occurrences, gold, plan.sites)
        if why is not None and rec.id.split("::", 1)[0] in hidden:
            why = "an assertion does not hold"
        out.append(rec if why is None else replace(rec, outcome=Outcome.FAILED, detail=f"decided on the host: {why}"))
    return out


def _forged_pass(occurrences: Sequence[object], plan: Rewrite) -> str | None:
    """Why a node-reported pass is impossible, from the test's own observations; None if it is not."""
    got = entries(occurrences)
    if got is None:
        return None
    for site, what, _ in got:
        info = plan.sites.get(site)
        if what == "raise" and info is not None and info.kind == "plain":
            return f"raised at line {info.line}"
    if plan.unwrapped == 0 and not any(what == "end" for _, what, _ in got):
        return "did not reach its end"
    return None


def assertion_counts(plans: Mapping[str, Rewrite], file_suite: Mapping[str, Suite]) -> list[AssertionCount]:
    """Each suite's externalised and total assertions (:func:`bouts.runner._verdicts.counts_by_suite`)."""
    return counts_by_suite((file_suite[rel], plan.externalised, plan.total) for rel, plan in plans.items())
