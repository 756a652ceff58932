"""The engine's own placeholders are not secrets (issue 37). Pure.

The agents bridge sets ``OPENAI_API_KEY=bouts-proxy`` in the agent's sandbox
(``bouts.models.placeholders``); an agent that writes it back (``.env``, ``os.environ.setdefault``,
a config file) has copied the engine's value, not leaked a credential. A hard-coded-credential
finding (CWE-798 family) is the engine's placeholder when its source line binds one of the engine's
variables to exactly the value the engine gives it, and nothing else on the line (comments included)
looks like a value: a second variable with a real-looking key beside it keeps the finding. The
decision rests on what the engine wrote, name and value together: the value under another name
(``api_key = "bouts-proxy"``, ``PASSWORD=bouts-proxy``) is a finding like any literal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bouts.judges.security._findings import ToolFinding
from bouts.judges.security._severity import family
from bouts.models.placeholders import ENGINE_PLACEHOLDERS

SECRET_FAMILY = 798
_QUOTED = re.compile(r"""(["'`])((?:(?!\1).){3,})\1""")
_UNQUOTED_VALUE = re.compile(r"""[=:]\s*(?![A-Za-z_][\w.]*\()([^\s"'`#,;)(\]\[{}]{3,})""")
"""``KEY=value`` unquoted (a ``.env`` or shell line); a call (``= os.getenv(``) is code, not a value."""
_KEYLIKE = re.compile(r"(?<![\w\-+/=.])(?=[\w\-+/=.]*[\d-])(?=[\w\-+/=.]*[A-Za-z])[\w\-+/=.]{16,}")
"""Anywhere on the line, comments included: a token of letters with digits or dashes, as long as a key."""


def _binding(name: str, value: str) -> re.Pattern[str]:
    """``NAME`` then, within a few characters of punctuation (``=``, ``: ``, ``", "``, ``"] = "``),
    exactly ``value``, delimited: not a prefix of a longer value. Quotes around either are part of it."""
    return re.compile(rf"[\"'`]?(?<![\w-]){re.escape(name)}(?![\w-])[\s\"'`\]\[,:=()]{{1,8}}"
                      rf"{re.escape(value)}(?![\w\-+/=.])[\"'`]?")


def is_engine_placeholder(line: str, placeholders: Mapping[str, str] = ENGINE_PLACEHOLDERS) -> bool:
    """Whether ``line`` (raw, comment and all) only binds engine variables to the engine's values."""
    rest = line
    found = False
    for name, value in placeholders.items():
        pattern = _binding(name, value)
        if pattern.search(rest):
            found = True
            rest = pattern.sub(" ", rest)
            rest = re.sub(rf"[\"'`]?(?<![\w-]){re.escape(name)}(?![\w-])[\"'`]?", " ", rest)
    if not found:
        return False
    return not (_QUOTED.search(rest) or _UNQUOTED_VALUE.search(rest) or _KEYLIKE.search(rest))


def drop_placeholders(findings: list[ToolFinding], lines: list[str]) -> list[ToolFinding]:
    """``findings`` of one file without the secrets that are the engine's placeholders."""
    return [f for f in findings
            if family(f.cwe) != SECRET_FAMILY or not (0 < f.line <= len(lines))
            or not is_engine_placeholder(lines[f.line - 1])]
