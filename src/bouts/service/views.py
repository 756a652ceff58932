"""What each role may see of a stored scorecard. Hidden tests' source and expected values never
enter a scorecard (the runner keeps only the exception type); for anyone but an operator even that
``detail`` of a hidden test is blanked, so the public view says only which hidden tests passed."""

from __future__ import annotations

import copy
from typing import Any

from bouts.service.storage.records import Principal


def scorecard_view(card: dict[str, Any], principal: Principal) -> dict[str, Any]:
    """``card`` as ``principal`` may see it (a copy; the stored card is untouched)."""
    if principal.role == "operator":
        return card
    shown = copy.deepcopy(card)
    for test in shown.get("tests", []):
        if test.get("suite") == "hidden":
            test["detail"] = ""
    return shown
