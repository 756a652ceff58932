"""What each role may see of a stored scorecard. Hidden tests' source and expected values never
enter a scorecard (the runner keeps only the exception type); for anyone but an operator even that
``detail`` of a hidden test is blanked, so the public view says only which hidden tests passed."""

from __future__ import annotations

from typing import Any

from bouts.service.limits import storable
from bouts.service.storage.records import Principal


def scorecard_view(card: dict[str, Any], principal: Principal) -> dict[str, Any]:
    """``card`` as ``principal`` may see it (a copy; the stored card is untouched). Text a card
    stored before ``bouts.service.limits.storable`` guarded the writes is made sendable here."""
    shown = storable(card)
    if principal.role == "operator":
        return shown  # type: ignore[no-any-return]
    for test in shown.get("tests", []):
        if test.get("suite") == "hidden":
            test["detail"] = ""
    return shown
