"""Building canonical events from the two shapes every harness shares: a shell command with its result,
and a file tool (view/create/str_replace/…) with its result. Adapters only say which shape they saw."""

from __future__ import annotations

import re

from bouts.models.trajectory import Event, EventKind, TestCounts
from bouts.trajectory._base import ToolResult, excerpt
from bouts.trajectory._classify import (
    PYTHONS,
    Action,
    classify_command,
    command_segments,
    is_test_command,
    status_actions,
    status_program,
)
from bouts.trajectory._outcomes import parse_test_counts

SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
"""mini-swe-agent ends a run by echoing one of these: that command is the submission."""


_NO_MATCH = {"grep", "egrep", "fgrep", "rg", "ag", "ack"}
"""Searchers whose exit status 1 means "no match" (a finding, not a failure); 2 is an error."""
_RUNNER_DID_NOT_START = re.compile(
    r"No module named '?(?:pytest|unittest|nose2?|tox|nox|django)\b|ModuleNotFoundError: No module named '?_?pytest"
    r"|\b(?:pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|npx|npm|yarn|pnpm|cargo|go|make)\S*: "
    r"(?:command )?not found|: command not found|ERROR: usage: |error: unrecognized arguments"
    r"|Cannot find module|npm ERR! Missing script|error: no such command|No rule to make target|"
    r"ERROR: file or directory not found|ImportError while loading conftest"
)
"""What a test runner prints when it never ran the suite: however the pipeline exits, the run failed."""


_SHELL_REFUSED = re.compile(
    r"(?:^|\n)(?:/bin/)?(?:ba|z|da)?sh: (?:-c: )?(?:line \d+: )?(?:syntax error near unexpected token"
    r"|syntax error: unexpected end of file|unexpected EOF while looking for matching)"
)


def refused_by_shell(output: str | None) -> bool:
    """Whether the shell refused the command line as a whole (a syntax error): nothing in it ran."""
    return bool(output) and _SHELL_REFUSED.search(output[:2000]) is not None


def runner_did_not_start(output: str | None) -> bool:
    """Whether a test command's output says the runner could not start (missing module, bad usage)."""
    return bool(output) and _RUNNER_DID_NOT_START.search(output) is not None


def _names(output: str, path: str) -> bool:
    """Whether an error output names ``path`` as a word (``rm: cannot remove 'b'``; not the ``a`` of "cannot")."""
    return re.search(rf"(?:^|[\s'\"`‘:]){re.escape(path)}(?:$|[\s'\"’:])", output, re.M) is not None


def _verdicts(command: str, actions: list[Action], result: ToolResult) -> list[bool | None]:
    """Each action's ``ok``. The exit status is the LAST segment's (``a && b``, ``a | b``, ``a; b``): a
    failure belongs to the segment that reported it, so a heredoc write followed by a failing script is
    a write that happened (``None``: the log does not say it failed) and a failed run; grep-like exit 1
    is "no match", an answer."""
    code = result.exit_code
    base = result.ok if result.ok is not None else (None if code is None else code == 0)
    failing_unknown = code is None and result.ok is False  # a tool error with no exit status (Claude Code)
    if (code is None or code == 0 or len(actions) == 0) and not (failing_unknown and actions):
        return [base] * len(actions)
    if code == 1 and status_program(command) in _NO_MATCH:
        return [True if a.kind == "search" else None for a in actions]
    owner = status_actions(command)
    owner_files = {(a.kind, a.path) for a in owner if a.kind != "run"}
    owner_runs = not owner_files
    if len(owner_files) > 1 and result.output:
        # `rm a b c` exiting 1 because b was missing: only the operands its errors name failed
        named = {(k, p) for k, p in owner_files if p and _names(result.output, p)}
        owner_files = named or owner_files
    verdicts: list[bool | None] = [
        (False if owner_runs else None) if a.kind == "run" else (False if (a.kind, a.path) in owner_files else None)
        for a in actions
    ]
    if False not in verdicts:
        verdicts[-1] = False
    return verdicts


_TRACEBACK = re.compile(r"Traceback \(most recent call last\):|^\s*File \"[^\"\n]+\", line \d+, in ", re.M)
"""A Python traceback, or its frames when a pipe's ``tail`` cut its header off."""


def _never_ran(output: str | None) -> bool:
    """The runner failed before it ran any test: it could not start (no module named pytest, command
    not found) or crashed before its summary (django's ImproperlyConfigured, pytest's own config error
    under ``| tail``). Only for output with no test summary."""
    return runner_did_not_start(output) or bool(output and _TRACEBACK.search(output))


def _test_verdict(command: str, ok: bool | None, tests: TestCounts | None, output: str | None) -> bool | None:
    """A test run's ``ok``: failed when the runner never started or tests failed, whatever the exit code;
    when the runner's status is hidden behind a pipe (``pytest | tail``), only its summary tells."""
    if runner_did_not_start(output) or (tests is not None and tests.failed > 0):
        return False
    if tests is None and _never_ran(output):
        return False  # the runner crashed before printing a summary (e.g. django's ImproperlyConfigured)
    segments = command_segments(command)
    clean = tests is not None and tests.passed > 0
    if segments and not is_test_command(segments[-1]):
        return True if clean else None
    return ok if ok is not None else (True if clean else None)  # no exit status logged (aider's /test)


def _runs_script(command: str) -> bool:
    """Whether the command runs a Python script or module of the agent's (``python run_simple_test.py``):
    when its output ends in a unittest or pytest summary, the script ran tests."""
    return any(PYTHONS.match(argv[0].rsplit("/", 1)[-1]) for argv in command_segments(command))


_PATCHED = re.compile(
    r"^(?:patching file|Applied patch(?: to)?) '?([^'\n]+?)'?(?: cleanly\.?| with conflicts\.?)?$", re.M
)
"""``patch`` and ``git apply -v`` name each file they change: ``patching file src/a.py``."""


def _patched_files(actions: list[Action], output: str | None) -> list[Action]:
    """A patch applied from a file (``patch -p1 < fix.patch``) is an edit of no named file to the
    classifier; the tool's own output names the files it changed."""
    if not output or not any(a.kind == "edit" and a.path is None for a in actions):
        return actions
    named = list(dict.fromkeys(m.strip() for m in _PATCHED.findall(output[:20000])))
    if not named:
        return actions
    i = next(i for i, a in enumerate(actions) if a.kind == "edit" and a.path is None)
    return [*actions[:i], *(Action("edit", path=p) for p in named), *actions[i + 1 :]]


def command_events(t: float, command: str, result: ToolResult | None, line: int | None) -> list[Event]:
    """Events for one shell command: file actions per the classifier, plus one ``run`` if it ran anything.

    The output excerpt goes to the run event (or the last file action when there is none); test
    counts are parsed from the FULL output before it is capped, since summaries sit at its end.
    """
    if any(marker in command for marker in SUBMIT_MARKERS):
        return [Event(t=t, kind="submit", source_line=line)]
    result = result or ToolResult()
    actions = classify_command(command, bodies=True)
    # bash refused the line: nothing in it ran, its words are no paths; a patch from a file: the files it names
    refused = refused_by_shell(result.output)
    actions = [Action("run")] if refused else _patched_files(actions, result.output)
    verdicts = _verdicts(command, actions, result)
    has_run = any(a.kind == "run" for a in actions)
    events: list[Event] = []
    for i, (action, ok) in enumerate(zip(actions, verdicts, strict=True)):
        last = i == len(actions) - 1
        if action.kind == "run":
            tests: TestCounts | None = None
            parsed = parse_test_counts(result.output) if action.runs_tests or _runs_script(command) else None
            if action.runs_tests or parsed is not None:  # a script of the agent's that called unittest/pytest
                ok = _test_verdict(command, ok, parsed, result.output)
                # A runner that failed before reporting any test (no module named pytest, command not
                # found, a settings or collection error, a file not found) ran no tests: a failed
                # command, not a red test run of 0 passed and 0 failed that a later green run of the
                # suite would "resolve"; nor is output with no summary a run of 0 tests (its counts are
                # unknown: the event keeps none).
                tests = None if runner_did_not_start(result.output) else parsed
            events.append(
                Event(
                    t=t,
                    kind="run",
                    command=excerpt(command),
                    exit_code=result.exit_code,
                    ok=ok,
                    tests=tests,
                    output=excerpt(result.output),
                    source_line=line,
                )
            )
        else:
            events.append(
                Event(
                    t=t,
                    kind=action.kind,
                    path=action.path,
                    query=action.query,
                    ok=ok,
                    # a heredoc write's output is the text it wrote (a later run of that script is read from it)
                    output=excerpt(action.body)
                    if action.body is not None
                    else excerpt(result.output)
                    if last and not has_run
                    else None,
                    source_line=line,
                )
            )
    return events


FILE_COMMANDS: dict[str, EventKind] = {
    "view": "read",
    "read": "read",
    "read_file": "read",
    "view_range": "read",
    "create": "write",
    "write": "write",
    "write_file": "write",
    "str_replace": "edit",
    "insert": "edit",
    "undo_edit": "edit",
    "edit": "edit",
    "replace": "edit",
    "delete": "delete",
}

EDIT_REJECTED = (
    "No replacement was performed",
    "did not appear verbatim",
    "Your proposed edit has introduced new syntax",
    "String to replace not found",
    "old_str` did not appear",
    "is not a valid",
    "does not exist",
    "Invalid `path`",
    "ERROR:",
    "Error:",
    "<tool_use_error>",
)
"""Phrases with which file tools (str_replace_editor, Claude Code Edit, SWE-agent edit) reject an edit."""


_DIRECTORY_LISTING = re.compile(r"^\s*Here's the files and directories up to \d+ levels? deep in ")
"""How str_replace_editor (OpenHands, SWE-agent 1.x, Anthropic's editor) answers ``view`` on a directory:
the path alone does not say (``/workspace`` has no trailing slash)."""


def _lists_directory(output: str | None) -> bool:
    return bool(output) and _DIRECTORY_LISTING.match(output) is not None


def rejected(output: str | None) -> bool:
    """Whether a file tool's reply says the action was refused (only its first lines are looked at)."""
    return bool(output) and any(p in output[:400] for p in EDIT_REJECTED)


def file_events(
    t: float, kind: EventKind, path: str | None, result: ToolResult | None, line: int | None
) -> list[Event]:
    """One event for a file tool call, its success read from the result when the harness gives none."""
    result = result or ToolResult()
    ok = result.ok
    if ok is None and result.output is not None and kind in {"edit", "write", "delete"}:
        ok = not rejected(result.output)
    output = excerpt(result.output) if kind in {"read", "search"} else None
    if kind == "read" and path and (path.rstrip("/") != path or _lists_directory(result.output)):
        kind = "search"  # viewing a directory lists it
    return [
        Event(
            t=t,
            kind=kind,
            path=path if kind != "search" else None,
            query=path if kind == "search" else None,
            ok=ok,
            output=output,
            source_line=line,
        )
    ]


def message_event(t: float, text: str, role: str, line: int | None) -> list[Event]:
    """A message event, or nothing for empty text (tool-only turns)."""
    text = text.strip()
    if not text:
        return []
    return [Event(t=t, kind="message", text=excerpt(text), role=role, source_line=line)]  # type: ignore[arg-type]


def usage_event(t: float, tokens_in: int, tokens_out: int, line: int | None) -> list[Event]:
    if tokens_in <= 0 and tokens_out <= 0:
        return []
    return [Event(t=t, kind="usage", tokens_in=max(0, tokens_in), tokens_out=max(0, tokens_out), source_line=line)]
