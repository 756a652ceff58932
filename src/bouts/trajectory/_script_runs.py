"""Runs of a script the agent wrote (issue 38, item 1): an ``edit`` of each file the script writes, after
the command that runs it (``_scripts`` reads what a script's text writes; ``_classify`` splits the command
that runs it)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from bouts.models.trajectory import Event
from bouts.trajectory._classify import classify_command, command_segments, is_test_command
from bouts.trajectory._scripts import script_targets

MAX_SCRIPTS = 256
"""Scripts remembered across a log (the most recent); a log rarely writes more than a handful."""


_SHEBANG_SHELL = re.compile(r"^#!\S*?(?:/env\s+)?\b(?:ba|z|da)?sh\b")


def is_shell_script(path: str, code: str) -> bool:
    """Whether a written file is a shell script (``fix.sh``, or a ``#!/bin/bash`` first line)."""
    return path.endswith((".sh", ".bash")) or _SHEBANG_SHELL.match(code.lstrip()) is not None


def shell_script_targets(code: str) -> list[str | None]:
    """The files a shell script's commands change (``sed -i … f``, ``cat > f``, a Python heredoc's writes),
    read by the same classifier as a command line."""
    changed = (a.path for a in classify_command(code) if a.kind in {"edit", "write", "delete"})
    return list(dict.fromkeys(changed))


def targets_of(path: str, code: str) -> list[str | None]:
    """The files a script file written at ``path`` with text ``code`` changes when run."""
    return shell_script_targets(code) if is_shell_script(path, code) else script_targets(code)


_INTERPRETERS = re.compile(r"^(?:python[\d.]*|py|perl|ruby|node|bash|sh)$")


def _script_of(argv: list[str]) -> str | None:
    """The script file an interpreter command runs (``python fix.py`` → ``fix.py``), or None."""
    if argv and argv[0].endswith((".sh", ".bash")):
        return argv[0]  # `./fix.sh`: the script runs itself
    if not argv or not _INTERPRETERS.match(argv[0].rsplit("/", 1)[-1]):
        return None
    rest = argv[1:]
    if not rest or rest[0] in {"-c", "-e", "-m", "-"}:
        return None
    script = next((w for w in rest if not w.startswith("-")), None)
    return script


def link_scripts(events: Iterator[Event]) -> Iterator[Event]:
    """The events, with an ``edit`` of each file a script writes after the run of a script written by an
    earlier command (a write event whose output is the script's text). Streams: remembers at most
    ``MAX_SCRIPTS`` scripts."""
    scripts: dict[str, tuple[list[str | None], tuple[float, int | None]]] = {}
    for e in events:
        yield e
        if e.kind == "write" and e.path and e.output:
            targets = targets_of(e.path, e.output)
            key = posixpath.normpath(e.path)
            scripts.pop(key, None)
            if targets:
                scripts[key] = (targets, (e.t, e.source_line))
                if len(scripts) > MAX_SCRIPTS:
                    scripts.pop(next(iter(scripts)))
        elif e.kind == "run" and e.command and scripts:
            for argv in command_segments(e.command):
                script = _script_of(argv)
                if script is None or is_test_command(argv):
                    continue
                name = posixpath.normpath(script)
                hit = next((k for k in scripts if k == name or k.endswith("/" + name.lstrip("./"))
                            or name.endswith("/" + k.lstrip("./"))), None)  # fmt: skip
                if hit is None or scripts[hit][1] == (e.t, e.source_line):
                    continue  # not a known script, or written by this same command (the classifier saw it)
                for target in scripts[hit][0]:
                    yield Event(t=e.t, kind="edit", path=target, source_line=e.source_line)
