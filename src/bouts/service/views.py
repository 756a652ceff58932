"""What each role may see of a stored scorecard (pure: card and caller in, a copy out).

Hidden tests' source and expected values never enter a scorecard (the runner keeps only the
exception type); for anyone but an operator even that ``detail`` of a hidden test is blanked.

While a challenge is open, agents and the public see no text the submission's running code could
choose (:func:`without_run_text`): a submission can read the hidden tests while they run, so any
such text would carry them out. Failure details shrink to a standard exception name, the stability
line to how much was seen, tampering evidence to the fact that there was some.

While a challenge is open, agents and the public also see how many hidden and pre-built adversarial
tests passed, not which: each such test's id becomes an opaque label (``hidden-3``,
``adversarial-2``) everywhere in the card (the test list, findings, math, flags), and a pre-built
adversarial test's failure message is blanked. Knowing the names and messages would let an agent
iterate against the held-back tests. Per challenge (``reveal_hidden``): ``after-close`` (default:
names shown once it stops accepting submissions), ``never``, or ``always``. Operators see all.
"""

from __future__ import annotations

import builtins
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
        shown = _opaque(without_run_text(shown))
    return shown


STANDARD_ERRORS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
) | {"RangeError", "ReferenceError", "EvalError", "URIError", "AggregateError", "Error", "DOMException"}
"""Exception names a failure detail keeps in the agents' and the public's view: Python's built-in
exceptions and JavaScript's standard errors, never a name the submission made up."""
WITHHELD = "withheld while the hidden tests are secret"
_SEEN = "seen: "
"""How ``bouts.assemble`` starts the stability line that quotes warnings and crashes."""
_TAMPERED = "the runner saw the grader tampered with: "
"""How the integrity judge quotes the runner's tampering evidence (``integrity.grader-tampering``)."""
_SITE = re.compile(r"line ([0-9]{1,6}): (.*)", re.DOTALL)
_HEAD = re.compile(r"\s*(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*)")


def failure_word(detail: str) -> str:
    """The part of a failure detail that may be shown while the hidden tests are secret: its leading
    exception name if it is a standard one (``AssertionError``, ``ValueError``, ``RangeError``),
    else nothing. Everything after it (the message, reprs of returned values, output) is the
    submission's to choose. An externalised assertion's ``line N: ...`` keeps its line (the visible
    test's site: the submission picks which assertion fails, no more)."""
    site = _SITE.match(detail or "")
    if site is not None:
        word = failure_word(site.group(2))
        return f"line {site.group(1)}" + (f": {word}" if word else "")
    head = _HEAD.match(detail or "")
    return head.group(1) if head and head.group(1) in STANDARD_ERRORS else ""


def without_run_text(card: dict[str, Any]) -> dict[str, Any]:
    """``card`` without the text its run's code could choose (in place; returned for chaining).

    The rule (docs/sandbox.md, "What the scorecard shows"): while the hidden tests are secret,
    agents and the public get no free text from the run. Every test's ``detail`` becomes
    :func:`failure_word`; the stability line's quoted warnings and crashes become a note; the
    tampering flag, and the bright lines and integrity findings quoting the runner's evidence, keep
    their verdict and lose the evidence. Scores, outcomes and the engine's own wording stay.
    """
    for test in card.get("tests", []):
        if isinstance(test, dict):
            test["detail"] = failure_word(str(test.get("detail") or ""))
    seen: set[str] = set()
    stability = card.get("components", {}).get("stability")
    if isinstance(stability, dict):
        seen = {line for line in stability.get("math", []) if isinstance(line, str) and line.startswith(_SEEN)}
    note = f"{_SEEN}warnings or crashes ({WITHHELD})"
    for holder in [card, *[c for c in card.get("components", {}).values() if isinstance(c, dict)]]:
        if isinstance(holder.get("math"), list):
            holder["math"] = [note if line in seen else line for line in holder["math"]]
        for finding in holder.get("findings", []) if isinstance(holder.get("findings"), list) else []:
            if isinstance(finding, dict) and isinstance(finding.get("message"), str):
                finding["message"] = _cut_evidence(finding["message"])
    for flag in card.get("flags", []):
        if not isinstance(flag, dict) or not isinstance(flag.get("message"), str):
            continue
        if flag.get("code") == "tampering":
            flag["message"] = f"test run voided: tampering detected (evidence {WITHHELD})"
        else:
            flag["message"] = _cut_evidence(flag["message"])
    return card


def _cut_evidence(text: str) -> str:
    """Everything from the first quoted tampering evidence on is dropped (the evidence may hold
    text the submission wrote, and where it ends cannot be told from the text)."""
    at = text.find(_TAMPERED)
    return text if at < 0 else text[: at + len(_TAMPERED)] + f"(evidence {WITHHELD})"


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
