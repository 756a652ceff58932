"""Control characters in untrusted text, shown instead of obeyed. Pure.

Submitted and sandbox-produced text (a test's failure detail, a warning, a trajectory's command, a
file name) reaches terminals, JSON printed to terminals and web pages. A terminal obeys what it is
sent: ``\\x1b[2J`` clears the operator's screen, ``\\x1b]52;…`` writes their clipboard, ``\\r``
overwrites the line being read, and Unicode's bidirectional overrides make text read differently
from its bytes. :func:`escape_controls` turns each such character into a visible ``\\x1b``-style
escape; newline and tab are kept. See docs/sandbox.md, "What leaves the sandbox".
"""

from __future__ import annotations

import re

CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 controls except tab and newline, DEL, C1 controls, line/paragraph separators and the bidirectional
marks, embeddings, overrides and isolates."""
_NOT_C0 = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every character of :data:`CONTROLS` written as ``\\x1b`` / ``\\u202e``."""
    return CONTROLS.sub(_escape, text) if CONTROLS.search(text) else text


def json_safe(text: str) -> str:
    """A JSON document with DEL, C1 and the characters above written as ``\\u`` escapes.

    JSON encoders escape C0 controls already (raw C0 outside strings is whitespace, left alone) but
    pass DEL and C1 (``\\x9b`` is a CSI to some terminals) through; those characters can only occur
    inside JSON strings, where ``\\u009b`` means the same character: the document's value is unchanged.
    """
    return _NOT_C0.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _NOT_C0.search(text) else text
