"""What every trajectory judge needs to know about a canonical event: which file it touched, whether it
ran tests, whether it failed, whether it changed anything, and when two actions are "the same".

Pure helpers over ``bouts.models.trajectory.Event``; the rules are tabled in docs/trajectory-judges.md.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Collection, Iterable, Sequence
from fnmatch import fnmatchcase

from bouts.models.trajectory import Event
from bouts.trajectory import (
    command_segments,
    is_probe,
    is_test_command,
    program_segments,
    refused_by_shell,
    status_program,
)

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
    r"\bgit\s+(?:checkout\s+(?:HEAD\s+|\S+\s+)?--\s|restore\b|reset\s+--hard"
    r"|stash(?:\s+(?:push|save)\b|\s+-[-\w]+|\s*$|\s*[;&|)]))"
    # `git checkout FILE` without `--`: an operand that is a path (a slash, a file suffix, or `.`), not a branch
    r"|\bgit\s+checkout\s+(?:(?:HEAD|[0-9a-f]{7,40})\s+)?(?:\.(?=$|[\s;&|)])|[\w.-]*/[^\s;&|]*|[\w-]+\.[A-Za-z]\w*(?=$|[\s;&|)]))"
    r"|\b(?:git\s+apply|patch)\b[^;&|]*\s(?:-R|--reverse)\b",
    re.M,
)
# `git stash pop` / `apply`: the set-aside changes come back (a change of the workspace, not a revert).
_STASH_BACK = re.compile(r"\bgit\s+stash\s+(?:pop|apply)\b")
_FILE_REDIRECT = re.compile(r"(?<![0-9&<>])>>?\s*(?!/dev/|&)[^\s;&|<>]+")
# Flags that change neither what a test command selects nor what it runs: stripped from its key.
_NOISE_FLAGS = re.compile(r"^(?:-q+|-v+|-s|-x|-rA|-r\w+|--tb=\S+|--no-header|--color=\S+|-p|no:\S+|--quiet|--verbose)$")
# Output that a command's exit status 1 means "no match" / "differs", not an error.
_EXIT1_IS_ANSWER = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp", "test", "[", "git"})


@functools.lru_cache(maxsize=8192)
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


@functools.lru_cache(maxsize=16384)
def same_file(a: str, b: str) -> bool:
    """One file named two ways: equal after normalising, or one is a path-tail of the other."""
    x, y = norm_path(a), norm_path(b)
    return x == y or x.endswith("/" + y.lstrip("/")) or y.endswith("/" + x.lstrip("/"))


def ok_of(e: Event) -> bool | None:
    """The adapter's success flag (``Event.ok``), if this model version has one."""
    value = getattr(e, "ok", None)
    return value if isinstance(value, bool) else None


def is_test_run(e: Event) -> bool:
    """A ``run`` that executed a test suite: it has test counts, or its command names a test runner (as a
    word, or a segment the classifier reads as one: sympy's ``bin/test``)."""
    return e.kind == "run" and (e.tests is not None or _runs_tests(e.command or ""))


@functools.lru_cache(maxsize=4096)
def _runs_tests(command: str) -> bool:
    segments = command_segments(command)
    if any(is_test_command(argv) for argv in segments):
        return True
    # a runner named as a word (`xargs pytest`) in a segment that neither only asks (`which tox`, `pip show
    # pytest`) nor installs it (`pip install pytest`, `npm i -D jest`: the runner is the package's name)
    return any(_TEST_RUNNER.search(" ".join(argv)) and not is_probe(argv) and not _installs(argv) for argv in segments)


_INSTALLERS = frozenset({"pip", "pip3", "uv", "conda", "mamba", "micromamba", "npm", "pnpm", "yarn", "bun", "apt",
                         "apt-get", "brew", "gem", "cargo", "go", "poetry", "pipx"})  # fmt: skip
_INSTALL_VERBS = frozenset({"install", "add", "i", "get", "remove", "uninstall"})


def _installs(argv: list[str]) -> bool:
    """Whether a segment installs or removes packages (``pip install pytest``, ``python -m pip install tox``,
    ``npm i -D jest``, ``go get``, ``cargo install cargo-nextest``)."""
    prog = argv[0].rsplit("/", 1)[-1] if argv else ""
    rest = argv[1:]
    if re.match(r"^python[\d.]*$", prog) and rest[:2] == ["-m", "pip"]:
        prog, rest = "pip", rest[2:]
    if prog == "uv" and rest[:1] == ["pip"]:
        rest = rest[1:]
    verbs = [w for w in rest if not w.startswith("-")][:1]
    return prog in _INSTALLERS and bool(verbs) and verbs[0] in _INSTALL_VERBS


@functools.lru_cache(maxsize=4096)
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
        return _mutates(e.command or "")
    return False


@functools.lru_cache(maxsize=4096)
def _mutates(cmd: str) -> bool:
    return bool(_MUTATING.search(cmd) or _FILE_REDIRECT.search(cmd))


@functools.lru_cache(maxsize=4096)
def command_key(command: str | None) -> str:
    """A command reduced to what decides what it does: whitespace collapsed, a trailing ``# comment``,
    ``| tail``-style viewers and display-only test flags dropped; ``python -m pytest`` is ``pytest``."""
    cmd = re.sub(r"\s+#.*$", "", (command or "").strip())
    cmd = re.sub(r"^(?:cd\s+\S+\s*(?:&&|;)\s*)+", "", cmd)  # `cd /testbed && pytest x` is `pytest x`
    cmd = re.sub(r"\bpython3(?:\.\d+)?\b", "python", cmd)
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


def on_task_path(e: Event) -> bool:
    """Whether a failed run is a failure of the work (issue 37): a test run, or a command whose failing
    (last) segment runs a program (a build, a script on the code) that is not a probe (``which x``,
    ``pip show x``, ``python -c "import h5py"``: their exit status is an answer). A read, a search or a
    navigation that failed (``cat missing.txt``) is not on the task's path."""
    if e.kind != "run" or refused_by_shell(e.output):  # bash refused the line: nothing in it ran
        return False
    if is_test_run(e):
        return True
    command = e.command or ""
    segments = command_segments(command)
    if not segments:
        return False
    last = segments[-1]
    return last in program_segments(command) and not is_probe(last)


def noop_events(events: Sequence[Event], known: Collection[str] = ()) -> frozenset[int]:
    """Events that changed nothing and showed nothing (SPEC: no-op actions never pay): a failed run and the
    identical run that passes with nothing changed in between (both: the pass says the failure was not
    the code's, and the code it ran is the code that failed), a read of nothing (an empty output, or a
    path no workspace file in ``known`` has, that no earlier event wrote, and no output), a rejected edit."""
    found: set[int] = set()
    for i, e in enumerate(events):
        if e.kind == "run" and failed(e):
            key = command_key(e.command)
            for j in range(i + 1, len(events)):
                x = events[j]
                if changes(x):
                    break
                if x.kind == "run" and command_key(x.command) == key:
                    if passed(x):
                        found.update((i, j))
                    break
        elif e.kind == "read" and read_of_nothing(events, i, known) or rejected_edit(e):
            found.add(i)
    return frozenset(found)


def read_of_nothing(events: Sequence[Event], i: int, known: Collection[str] = ()) -> bool:
    """A read that showed nothing: no path, an empty output, or (with the workspace's files ``known``) a
    path that names none of them, that no earlier event wrote or a command named, read with no output."""
    e = events[i]
    if not e.path or (e.output is not None and not e.output.strip()):
        return True
    if e.output is not None or not known:
        return False
    if any(same_file(e.path, k) for k in known):
        return False
    name = posixpath.basename(norm_path(e.path))
    return not any(
        (x.path and x.kind in CHANGE_KINDS and same_file(x.path, e.path))
        or (x.kind == "run" and name in (x.command or ""))
        for x in events[:i]
    )


def on_reverted_code(events: Sequence[Event], i: int) -> bool:
    """A run after a revert (``git stash``, ``git checkout -- f``, ``patch -R``) with nothing else changed
    since: the agent checking that a test fails without its fix, not a failure of the work."""
    own = events[i].command or ""
    if m := REVERT_CMD.search(own):  # `git stash && pytest …; git stash pop`: the fix set aside, then the tests
        runner = _TEST_RUNNER.search(own, m.end())
        if not _STASH_BACK.search(own, m.end(), runner.start() if runner else len(own)):
            return True
    for x in reversed(events[:i]):
        if x.kind == "run" and x.command and (m := REVERT_CMD.search(x.command)):
            return not _STASH_BACK.search(x.command, m.end())  # `git stash; …; git stash pop`: the fix is back
        if changes(x):
            return False
    return False


def restores_workspace(e: Event) -> bool:
    """A version-control command that rewrote files it does not name as events (``git checkout f``,
    ``git stash``, ``git stash pop``): what was read before may no longer be what is on disk."""
    cmd = e.command or ""
    return e.kind == "run" and bool(REVERT_CMD.search(cmd) or _STASH_BACK.search(cmd))


_RM = re.compile(r"^(?:rm|unlink)$")


def scratch_files(events: Sequence[Event], existing: Collection[str] = ()) -> list[str]:
    """Files the agent created and removed again (a delete event or an ``rm``): a write of a path no
    ``existing`` (``starter/``) file has and that no earlier event touched, later deleted. Not part of the
    submitted work: a scratch test file is not a modified test."""
    removals: list[tuple[int, list[str]]] = []  # (event, paths it removed), read once
    for j, x in enumerate(events):
        if x.kind == "delete" and x.path and changes(x):
            removals.append((j, [x.path]))
        elif x.kind == "run" and x.command and ("rm" in x.command or "unlink" in x.command):
            gone = [w for argv in command_segments(x.command) if _RM.match(argv[0].rsplit("/", 1)[-1])
                    for w in argv[1:] if not w.startswith("-")]  # fmt: skip
            if gone:
                removals.append((j, gone))
    out: list[str] = []
    if not removals:
        return out
    for i, e in enumerate(events):
        if e.kind != "write" or not e.path or not changes(e) or any(same_file(e.path, f) for f in existing):
            continue
        if any(x.path and same_file(x.path, e.path) for x in events[:i]) or any(same_file(e.path, s) for s in out):
            continue
        if any(j > i and any(same_file(e.path, g) for g in gone) for j, gone in removals):
            out.append(e.path)
    return out
