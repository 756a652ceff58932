"""What an LLM judge is shown: the diff against ``starter/``, the comment-free view of the changed
files (both from the submission view, ``bouts.models.view``: the same files every judge reads), and the
test evidence. Nothing is executed.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass

from bouts.judges.llm.strip import strip_comments
from bouts.models.results import Outcome, RunReport
from bouts.models.view import SubmissionView, ViewFile

MAX_DETAIL = 200


@dataclass(frozen=True)
class ChangedFile:
    """One file that differs between ``starter/`` and the submission's ``code/``."""

    path: str
    before: str | None
    """Starter text (None: the agent added the file)."""
    after: str | None
    """Submitted text (None: the agent deleted the file)."""
    note: str | None = None
    """Why the text is not shown (binary, too large)."""


def _text(f: ViewFile | None) -> str | None:
    """A file's text for the prompt; None when binary or over the view's size cap."""
    return None if f is None or f.is_binary else f.text


def changed_files(view: SubmissionView) -> list[ChangedFile]:
    """Every judged file added, modified or deleted by the submission (``SubmissionView.changes``:
    protected paths and vendored code excluded, for every judge alike)."""
    out = []
    for path in view.changes:
        old_f, new_f = view.judged_starter.get(path), view.judged.get(path)
        old, new = _text(old_f), _text(new_f)
        unreadable = (old_f is not None and old is None) or (new_f is not None and new is None)
        out.append(ChangedFile(path, old, new, "binary or too large" if unreadable else None))
    return out


def diff_view(files: list[ChangedFile], cap: int) -> str:
    """A unified diff (difflib) of the changed files, cut at ``cap`` characters with a marker."""
    parts = []
    for f in files:
        if f.note:
            parts.append(f"--- {f.path}: changed ({f.note}; not shown)\n")
            continue
        old = (f.before or "").splitlines(keepends=True)
        new = (f.after or "").splitlines(keepends=True)
        a = f"a/{f.path}" if f.before is not None else "/dev/null"
        b = f"b/{f.path}" if f.after is not None else "/dev/null"
        parts.append("".join(_terminated(difflib.unified_diff(old, new, a, b, n=3))))
    return cap_text("".join(parts), cap)


def _terminated(lines: object) -> list[str]:
    """difflib leaves a last line without newline unterminated; terminate it so hunks stay apart."""
    return [ln if ln.endswith("\n") else ln + "\n" for ln in lines]  # type: ignore[attr-defined]


def comment_free_view(files: list[ChangedFile], cap: int) -> str:
    """The submitted text of each added or modified code file, without comments or docstrings."""
    parts = []
    for f in files:
        if f.after is None or f.note:
            continue
        stripped = strip_comments(f.path, f.after)
        if stripped is None:
            parts.append(f"### {f.path}\n(prose or data file: shown only in the diff)\n")
        else:
            parts.append(f"### {f.path}\n{stripped}")
    return cap_text("\n".join(parts), cap)


def cap_text(text: str, cap: int) -> str:
    """``text`` cut at ``cap`` characters; the cut says how much was left out."""
    if len(text) <= cap:
        return text
    return text[:cap] + f"\n[... cut: {len(text) - cap} more characters not shown ...]\n"


def run_evidence(run: RunReport | None) -> str:
    """Outcome counts per suite; names and reasons only for *visible* tests.

    Hidden and adversarial test ids and details are never sent to a third-party model: they could
    reveal what the hidden tests check (SPEC §5).
    """
    if run is None:
        return "No test run is available."
    if run.infra_error:
        return f"The test run failed for infrastructure reasons (not the agent's fault): {run.infra_error}"
    lines = []
    for suite in ("visible", "hidden", "adversarial"):
        results = run.by_suite(suite)  # type: ignore[arg-type]
        if not results:
            continue
        counts = Counter(r.outcome.value for r in results)
        summary = ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
        lines.append(f"{suite}: {counts.get('passed', 0)}/{len(results)} passed ({summary})")
    failing = [r for r in run.by_suite("visible") if r.outcome != Outcome.PASSED]
    for r in failing[:20]:
        lines.append(f"  visible {r.outcome.value}: {r.id}" + (f" - {r.detail[:MAX_DETAIL]}" if r.detail else ""))
    if run.stability.crashes:
        lines.append("crashes: " + "; ".join(c[:MAX_DETAIL] for c in run.stability.crashes[:5]))
    if run.stability.warnings:
        lines.append("warnings: " + "; ".join(w[:MAX_DETAIL] for w in run.stability.warnings[:5]))
    return "\n".join(lines) or "The test run reported no tests."
