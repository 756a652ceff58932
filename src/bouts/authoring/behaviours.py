"""Which visible behaviour each hidden test varies, read statically from the challenge's test files
(the lint's reading: ``test_<behaviour>__<variant>`` or a ``behaviour`` marker in Python, a
``// @behaviour`` comment in JavaScript/TypeScript). ``bouts score --tests`` names it beside a hidden
failure, whose detail is never shown."""

from __future__ import annotations

from bouts.calibration.js_lint import parse_js_tests
from bouts.calibration.lint import parse_suites
from bouts.models.challenge import Challenge


def hidden_behaviours(challenge: Challenge) -> dict[str, str]:
    """``file::name`` of each hidden test → its behaviour (a test whose file cannot be read is left out)."""
    out: dict[str, str] = {}
    python = challenge.spec.language == "python"
    for rel in challenge.test_files.get("hidden", []):
        try:
            source = (challenge.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if python:  # the lint's own reading; a file it cannot read is left out
            parsed, _, _ = parse_suites({rel: ("hidden", source)})
            tests = [(t.name, t.behaviour) for t in parsed.get(rel, [])]
        else:
            tests = [(name, b) for name, b, _ in parse_js_tests(source) if b]
        out.update({f"{rel}::{name}": behaviour for name, behaviour in tests})
    return out


def behaviour_of(test_id: str, behaviours: dict[str, str]) -> str | None:
    """The behaviour of a test id as the runner reports it (a parametrised case's ``[...]`` dropped)."""
    if test_id in behaviours:
        return behaviours[test_id]
    base = test_id.split("[", 1)[0]
    return behaviours.get(base)
