"""Read ``quarantine.toml``, the list ``bouts check`` writes of tests that failed on the reference
solution in repeated runs (SPEC §3). Pure: text in, the quarantined test ids out.

Scoring reads it (``bouts.loading.challenge``; ``bouts.calibration.check`` writes it): a quarantined
test is removed from the counts of every submission and listed on its scorecard, so a test that
fails on the reference is never counted against a submission, even on a challenge an operator
launched with the list not empty.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping

from bouts.errors import ChallengeError

SCHEMA = "bouts.quarantine/1"
FILE = "quarantine.toml"


def parse_quarantine(text: str, *, shown: str = FILE) -> Mapping[str, str]:
    """Test id → why it is quarantined (its first recorded failure). Raises ``ChallengeError`` naming
    the file and the field for anything malformed."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ChallengeError(f"not valid TOML: {e}", file=shown) from None
    if data.get("schema") != SCHEMA:
        raise ChallengeError(f"must be \"{SCHEMA}\", got {data.get('schema')!r}", file=shown, field="schema")
    tests = data.get("test", [])
    if not isinstance(tests, list):
        raise ChallengeError("must be an array of tables ([[test]])", file=shown, field="test")
    out: dict[str, str] = {}
    for i, entry in enumerate(tests):
        where = f"test[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
            raise ChallengeError("needs an 'id' (the test's id)", file=shown, field=f"{where}.id")
        failures = entry.get("failures", [])
        if not isinstance(failures, list) or not all(isinstance(f, str) for f in failures):
            raise ChallengeError("must be a list of strings", file=shown, field=f"{where}.failures")
        out[entry["id"]] = failures[0] if failures else "failed on the reference"
    return out
