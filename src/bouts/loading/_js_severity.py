"""Severities of JavaScript adversarial tests, declared in comments (the loader never runs tests).

A challenge author writes ``// @severity high`` on the line right before a ``test(``, ``it(`` or
``describe(`` call whose name is a string literal, or ``// @file-severity high`` anywhere for every
test of the file. Keys are node-id prefixes, as for Python: ``file``, ``file::name``,
``file::suite > name``. Test names inside ``describe`` blocks are tracked with a brace count over
the source with strings and comments blanked out, which is enough for test files.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_MARK = re.compile(r"^\s*//\s*@(file-)?severity\s+(\S+)\s*$")
_CALL = re.compile(r"^\s*(test|it|describe|suite)(?:\.\w+)?\s*\(\s*(['\"`])((?:\\.|(?!\2).)*)\2")
_BLANK = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|`(?:\\.|[^`\\])*`", re.DOTALL)


def parse_js_severities(source: str, rel: str, check: Callable[[str, int], str]) -> dict[str, str]:
    """Severity declarations of one JS test file by node-id prefix.

    ``check(value, line)`` validates a severity name (raising the loader's error) and returns it.
    """
    found: dict[str, str] = {}
    lines = source.splitlines()
    # Depth of each line's start, from the source with strings and comments blanked (same length).
    blank = _BLANK.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source).splitlines()
    stack: list[tuple[str, int]] = []  # (describe name, depth inside its body)
    depth, pending = 0, None
    for i, line in enumerate(lines):
        while stack and depth < stack[-1][1]:
            stack.pop()
        mark = _MARK.match(line)
        call = None if mark else _CALL.match(line)
        if mark and mark.group(1):
            found[rel] = check(mark.group(2), i + 1)
        elif mark:
            pending = check(mark.group(2), i + 1)
        elif call:
            if pending is not None:
                found[f"{rel}::{' > '.join([*(n for n, _ in stack), call.group(3)])}"] = pending
            if call.group(1) in ("describe", "suite"):
                stack.append((call.group(3), depth + 1))
        if not mark and line.strip() and not line.strip().startswith("//"):
            pending = None  # a mark names only the call on the very next code line
        text = blank[i] if i < len(blank) else ""
        depth += text.count("{") + text.count("(") - text.count("}") - text.count(")")
    return found
