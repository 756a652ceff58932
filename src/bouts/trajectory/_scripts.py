"""Edits made by a script the agent wrote (issue 38, item 1): what a script opens for writing (pure).

Agents often change files through a script rather than an edit tool: ``cat > fix.py <<EOF … open(p, 'w')
… EOF`` then ``python fix.py``, ``python - <<EOF``, ``python -c "…"``, ``perl -pi -e … f``. Read as a run
only, such a change was invisible: the file it changed looked unchanged (a later re-read charged as
redundant, a test re-run as churn). This module names the files a script's text opens for writing, where
the text says which (a literal, or a name bound to one); a write it cannot resolve is still a change, of
no named file (``None``). ``_script_runs.link_scripts`` carries a script written in one command to the command that
runs it later.
"""

from __future__ import annotations

import re

_STR = r"""[rbuRBU]{0,2}(?:'([^'\n]+)'|"([^"\n]+)")"""
_ASSIGN = re.compile(rf"^\s*(\w+)\s*=\s*(?:Path\(|pathlib\.Path\(|os\.path\.join\()?\s*{_STR}", re.M)
_OPEN = re.compile(r"""\bopen\(\s*([^,()]+?)\s*,\s*(?:mode\s*=\s*)?['"]([rwxab+t]+)['"]""")
_WRITE_CALL = re.compile(r"""(?:Path\(\s*([^()]+?)\s*\)|\b(\w+))\.write_(?:text|bytes)\(""")
_INPLACE = re.compile(r"""fileinput\.(?:input|FileInput)\(\s*([^,()]+?)\s*,[^)]*inplace\s*=\s*(?:True|1)""")
_LITERAL = re.compile(rf"^{_STR}$")


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
