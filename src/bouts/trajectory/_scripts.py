"""Edits made by a script the agent wrote (issue 38, item 1): what a script opens for writing (pure).

Agents often change files through a script rather than an edit tool: ``cat > fix.py <<EOF … open(p, 'w')
… EOF`` then ``python fix.py``, ``python - <<EOF``, ``python -c "…"``, ``perl -pi -e … f``. Read as a run
only, such a change was invisible: the file it changed looked unchanged (a later re-read charged as
redundant, a test re-run as churn). This module names the files a script's text opens for writing, where
the text says which (a literal, or a name bound to one); a write it cannot resolve is still a change, of
no named file (``None``). ``link_scripts`` carries a script written in one command to the command that
runs it later.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from bouts.models.trajectory import Event

_STR = r"""[rbuRBU]{0,2}(?:'([^'\n]+)'|"([^"\n]+)")"""
_ASSIGN = re.compile(rf"^\s*(\w+)\s*=\s*(?:Path\(|pathlib\.Path\(|os\.path\.join\()?\s*{_STR}", re.M)
_OPEN = re.compile(r"""\bopen\(\s*([^,()]+?)\s*,\s*(?:mode\s*=\s*)?['"]([rwxab+t]+)['"]""")
_WRITE_CALL = re.compile(r"""(?:Path\(\s*([^()]+?)\s*\)|\b(\w+))\.write_(?:text|bytes)\(""")
_INPLACE = re.compile(r"""fileinput\.(?:input|FileInput)\(\s*([^,()]+?)\s*,[^)]*inplace\s*=\s*(?:True|1)""")
_LITERAL = re.compile(rf"^{_STR}$")
MAX_SCRIPTS = 256
"""Scripts remembered across a log (the most recent); a log rarely writes more than a handful."""


def _resolve(expr: str, names: dict[str, str]) -> str | None:
    expr = expr.strip()
    lit = _LITERAL.match(expr)
    if lit:
        return lit.group(1) or lit.group(2)
    return names.get(expr)


def script_targets(code: str) -> list[str | None]:
    """The files a Python script's text writes: each ``open(x, 'w'|'a'|'r+'|'x')``, ``Path(x).write_text``,
    ``fileinput.input(x, inplace=True)`` with ``x`` a literal or a name bound to one; ``None`` for a write
    whose target the text does not resolve. Empty: the script writes nothing."""
    names = {m.group(1): m.group(2) or m.group(3) for m in _ASSIGN.finditer(code)}
    found: list[str | None] = []
    for m in _OPEN.finditer(code):
        if set(m.group(2)) & set("wax+"):
            found.append(_resolve(m.group(1), names))
    for m in _WRITE_CALL.finditer(code):
        found.append(_resolve(m.group(1) or m.group(2), names))
    for m in _INPLACE.finditer(code):
        found.append(_resolve(m.group(1), names))
    out: list[str | None] = []
    for target in found:
        if target not in out:
            out.append(target)
    return out


_SHEBANG_SHELL = re.compile(r"^#!\S*?(?:/env\s+)?\b(?:ba|z|da)?sh\b")


def is_shell_script(path: str, code: str) -> bool:
    """Whether a written file is a shell script (``fix.sh``, or a ``#!/bin/bash`` first line)."""
    return path.endswith((".sh", ".bash")) or _SHEBANG_SHELL.match(code.lstrip()) is not None


def shell_script_targets(code: str) -> list[str | None]:
    """The files a shell script's commands change (``sed -i … f``, ``cat > f``, a Python heredoc's writes),
    read by the same classifier as a command line."""
    from bouts.trajectory._classify import classify_command

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
    from bouts.trajectory._classify import command_segments, is_test_command

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
