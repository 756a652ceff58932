"""What each role may see of a stored scorecard (pure: card and caller in, a copy out).

Hidden tests' source and expected values never enter a scorecard (the runner keeps only the
exception type); for anyone but an operator even that ``detail`` of a hidden test is blanked.

While a challenge is open, agents and the public see how many hidden and pre-built adversarial
tests passed, not which: each such test's id becomes an opaque label (``hidden-3``,
``adversarial-2``) everywhere in the card (the test list, findings, math, flags), and a pre-built
adversarial test's failure message is blanked. Knowing the names and messages would let an agent
iterate against the held-back tests. Per challenge (``reveal_hidden``): ``after-close`` (default:
names shown once it stops accepting submissions), ``never``, or ``always``. Operators see all.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from bouts.service.limits import storable
from bouts.service.storage.records import ChallengeInfo, Principal

RevealHidden = Literal["after-close", "never", "always"]
HELD_BACK = ("hidden", "adversarial")
"""Suites whose tests are held back from agents (the generated adversarial tests are not: they
come from the agent's own code)."""


def scorecard_view(
    card: dict[str, Any], principal: Principal, challenge: ChallengeInfo | None = None
) -> dict[str, Any]:
    """``card`` as ``principal`` may see it (a copy; the stored card is untouched). Text a card
    stored before ``bouts.service.limits.storable`` guarded the writes is made sendable here."""
    shown: dict[str, Any] = storable(card)
    if principal.role == "operator":
        return shown
    for test in shown.get("tests", []):
        if test.get("suite") == "hidden":
            test["detail"] = ""
    if hides_names(challenge):
        shown = _opaque(shown)
    return shown


def hides_names(challenge: ChallengeInfo | None) -> bool:
    """Whether non-operators see held-back tests by label only (module docstring)."""
    policy = challenge.reveal_hidden if challenge is not None else "after-close"
    if policy == "always":
        return False
    return policy == "never" or challenge is None or challenge.active


def _opaque(card: dict[str, Any]) -> dict[str, Any]:
    labels: dict[str, str] = {}
    counts = dict.fromkeys(HELD_BACK, 0)
    for test in card.get("tests", []):
        suite = test.get("suite")
        if suite in counts and isinstance(test.get("id"), str):
            counts[suite] += 1
            labels.setdefault(test["id"], f"{suite}-{counts[suite]}")
            test["detail"] = ""
    if not labels:
        return card
    shown_names = {t["id"].rsplit("::", 1)[-1] for t in card.get("tests", []) if t.get("suite") not in HELD_BACK}
    words: dict[str, str] = {}
    for test_id, label in labels.items():
        name = test_id.rsplit("::", 1)[-1]
        if name != test_id and name not in shown_names and len(name) >= 6:
            words.setdefault(name, label)  # the bare test name, where a message quotes only that
    pattern = re.compile("|".join(
        [re.escape(i) for i in sorted(labels, key=len, reverse=True)]
        + [rf"(?<![\w.]){re.escape(w)}(?!\w)" for w in sorted(words, key=len, reverse=True)]
    ))  # fmt: skip

    def swap(match: re.Match[str]) -> str:
        return labels.get(match.group(0)) or words[match.group(0)]

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(swap, value)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(card)  # type: ignore[no-any-return]
