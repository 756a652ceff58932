"""What every trajectory judge needs to know about a canonical event: which file it touched, whether it
ran tests, whether it failed, whether it changed anything, and when two actions are "the same".

Pure helpers over ``bouts.models.trajectory.Event``; the rules are tabled in docs/trajectory-judges.md.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase

from bouts.models.trajectory import Event
from bouts.trajectory import status_program

CHANGE_KINDS = frozenset({"edit", "write", "delete"})
ACTION_KINDS = frozenset({"read", "edit", "write", "delete", "search", "run"})
NO_TRAJECTORY = "no trajectory in the submission"

# Test runners, matched as a command word (a path prefix such as .venv/bin/ is allowed).
_TEST_RUNNER = re.compile(
    r"(?:^|[\s;&|(/])(?:pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|runtests(?:\.py|\.sh)?"
    r"|python[\d.]*\s+-m\s+(?:pytest|unittest|nose2|tox)"
    r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\S*"
    r"|(?:cargo|go|mvn|gradlew?|dotnet|swift|mix|deno)\s+test\b|cargo\s+nextest"
    r"|(?:make|just)\s+(?:test|check)\S*)"
    r"(?=$|[\s;&|)])"
)
# Commands that change the workspace even though the event is a ``run`` (reverts, installs, moves).
_MUTATING = re.compile(
    r"\b(?:sed\s+-i|git\s+(?:checkout|restore|reset|stash|apply|am|cherry-pick|revert|pull|merge|rebase)"
    r"|patch|mv|cp|rm|touch|apply_patch|(?:pip3?|uv\s+pip|npm|pnpm|yarn)\s+(?:install|add|i)\b)\b"
)
# Commands that undo earlier changes (the process judge's reverts; the claims check's "undone later").
REVERT_CMD = re.compile(
    r"\bgit\s+(?:checkout\s+(?:HEAD\s+|\S+\s+)?--\s|restore\b|reset\s+--hard|stash(?:\s+(?:push|save)\b|\s*$|\s*[;&|]))"
    r"|\b(?:git\s+apply|patch)\b[^;&|]*\s(?:-R|--reverse)\b"
)
_FILE_REDIRECT = re.compile(r"(?<![0-9&<>])>>?\s*(?!/dev/|&)[^\s;&|<>]+")
# Flags that change neither what a test command selects nor what it runs: stripped from its key.
_NOISE_FLAGS = re.compile(r"^(?:-q+|-v+|-s|-x|-rA|-r\w+|--tb=\S+|--no-header|--color=\S+|-p|no:\S+|--quiet|--verbose)$")
# Output that a command's exit status 1 means "no match" / "differs", not an error.
_EXIT1_IS_ANSWER = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp", "test", "[", "git"})


def norm_path(path: str) -> str:
    """A path as written, without ``./``, doubled slashes or ``a/../``; absolute paths stay absolute."""
    p = path.strip().replace("\\", "/")
    if not p:
        return p
    p = posixpath.normpath(p)
    return p[2:] if p.startswith("./") else p


def suffixes(path: str) -> list[str]:
    """Every tail of a path: ``/w/ledger/core.py`` → ``w/ledger/core.py``, ``ledger/core.py``, ``core.py``.

    Logs of real harnesses give absolute paths (``/testbed/...``); the challenge's globs are relative to
    ``code/``. Matching a glob against every tail finds the workspace root without knowing it.
    """
    parts = [p for p in norm_path(path).split("/") if p]
    return ["/".join(parts[i:]) for i in range(len(parts))]


def matches(path: str | None, globs: Iterable[str]) -> bool:
    """Whether ``path`` (relative or absolute) matches any of the globs (relative to ``code/``)."""
    if not path:
        return False
    pats = [g.strip("/") for g in globs]
    return any(fnmatchcase(tail, g) for tail in suffixes(path) for g in pats)


def same_file(a: str, b: str) -> bool:
    """One file named two ways: equal after normalising, or one is a path-tail of the other."""
    x, y = norm_path(a), norm_path(b)
    return x == y or x.endswith("/" + y.lstrip("/")) or y.endswith("/" + x.lstrip("/"))


def ok_of(e: Event) -> bool | None:
    """The adapter's success flag (``Event.ok``), if this model version has one."""
    value = getattr(e, "ok", None)
    return value if isinstance(value, bool) else None


def is_test_run(e: Event) -> bool:
    """A ``run`` that executed a test suite: it has test counts, or its command names a test runner."""
    return e.kind == "run" and (e.tests is not None or bool(_TEST_RUNNER.search(e.command or "")))


def _program(command: str) -> str:
    """The program whose exit status the command reports: the last segment's (``python x | grep y``
    reports grep's)."""
    return status_program(command)


def failed(e: Event) -> bool:
    """A run that failed: tests failed, or a non-zero exit (grep/diff exit 1 is an answer, not an error)."""
    if e.kind != "run":
        return False
    if e.tests is not None and e.tests.failed > 0:
        return True
    if is_test_run(e) and ok_of(e) is False:  # the runner never started (``No module named pytest | head``)
        return True
    if e.exit_code is not None and e.exit_code != 0:
        return not (e.exit_code == 1 and not is_test_run(e) and _program(e.command or "") in _EXIT1_IS_ANSWER)
    return ok_of(e) is False and e.exit_code is None


def passed(e: Event) -> bool:
    """A run known to have succeeded (no failed test, a zero exit or an adapter's ok)."""
    if e.kind != "run" or failed(e):
        return False
    return e.exit_code == 0 or ok_of(e) is True or (e.tests is not None and e.tests.passed > 0)


def rejected_edit(e: Event) -> bool:
    """A file change the tool refused (adapters set ``ok=False``)."""
    return e.kind in CHANGE_KINDS and ok_of(e) is False


def changes(e: Event) -> bool:
    """Whether the event may have changed the workspace (an accepted edit, or a mutating command)."""
    if e.kind in CHANGE_KINDS:
        return not rejected_edit(e)
    if e.kind == "run" and not is_test_run(e):
        cmd = e.command or ""
        return bool(_MUTATING.search(cmd) or _FILE_REDIRECT.search(cmd))
    return False


def command_key(command: str | None) -> str:
    """A command reduced to what decides what it does: whitespace collapsed, a trailing ``# comment``,
    ``| tail``-style viewers and display-only test flags dropped; ``python -m pytest`` is ``pytest``."""
    cmd = re.sub(r"\s+#.*$", "", (command or "").strip())
    cmd = re.sub(r"\s*\|\s*(?:tail|head|less|more|tee)\b.*$", "", cmd)
    cmd = re.sub(r"\s*2>&1", "", cmd)
    cmd = re.sub(r"\bpython[\d.]*\s+-m\s+pytest\b", "pytest", cmd)
    words = cmd.split()
    if _TEST_RUNNER.search(cmd):
        words = [w for w in words if not _NOISE_FLAGS.match(w)]
    return " ".join(words)


_SELECTION = re.compile(
    r"(?:^|\s)(?:-k|-m|--deselect|--lf|--last-failed|--ignore\S*|-t|--testNamePattern|--test-name-pattern"
    r"|--grep|-g|-run)(?:\s|=|$)|::"
)


def is_filtered_test_run(e: Event) -> bool:
    """A test run that selects part of the suite (``-k``, ``::node``, ``--deselect``, ``--lf``, ``-m``; jest/
    vitest ``-t``, mocha ``--grep``, go ``-run``). ``python -m pytest`` names a module, not a marker."""
    cmd = re.sub(r"\bpython[\d.]*\s+-m\s+\S+", "python-module", e.command or "")
    return bool(_SELECTION.search(cmd))


def action_indices(events: Sequence[Event]) -> list[int]:
    """Indices of the events that act (not messages, usage or the submission)."""
    return [i for i, e in enumerate(events) if e.kind in ACTION_KINDS]


def mentions(e: Event, needle: str) -> bool:
    """Whether the event's path, command, query or output names ``needle`` (a path or its tail)."""
    if not needle:
        return False
    hay = " ".join(x for x in (e.path, e.command, e.query, e.output) if x)
    return needle in hay


def is_assistant(e: Event) -> bool:
    """A message the agent itself wrote (no role means assistant, per the canonical format)."""
    return e.kind == "message" and (e.role is None or e.role == "assistant")
