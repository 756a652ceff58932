"""Explained numbers: every score in the core carries the lines of math that produced it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

# Scores are rounded to this many decimals before display and before the final rounding, so that
# binary floating-point noise (82.07499999999999) never decides a rounding (82.075 -> 82, not 82).
PRECISION = 6


def fmt(x: float) -> str:
    """A number as a human writes it: 82.075, 31.5, 90 (no float noise, no trailing zeros)."""
    if math.isnan(x):
        return "nan"
    text = f"{round(x, PRECISION):.{PRECISION}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def clean(x: float) -> float:
    """Round away float noise (see PRECISION)."""
    return round(x, PRECISION) + 0.0


def round_half_up(x: float) -> int:
    """Round a score to an integer the way people do: 82.5 -> 83, 82.075 -> 82 (not banker's)."""
    return int(math.floor(clean(x) + 0.5))


def clamp(x: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, x))


Cause = Literal["platform", "submission"]


@dataclass(frozen=True)
class Explained:
    """A score with the math that produced it, one human-readable line per step."""

    value: float
    math: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", clean(self.value))


@dataclass(frozen=True)
class NotScored:
    """A component that could not be scored, and why. Never replaced by an invented number."""

    reason: str
    math: tuple[str, ...] = field(default=())
    applies: bool = True
    """False when the component does not apply to this challenge (it asks for no deliverables): a
    profile rescales over the others without being provisional. True: it applies and was not scored."""

    cause: Cause = "platform"
    """Whose doing it is that the component was not measured (SPEC §6). ``platform`` (an LLM endpoint
    down, a scanner missing, an infrastructure failure, no judge configured): not scored, the profile
    rescales over the rest and is provisional. ``submission`` (no trajectory where the profile weighs
    one, an unreadable log, a judge failing on the submission's own content, no code change): it
    scores 0 with this reason (``bouts.scoring.withholding``), never rescaled away."""

    value = None


@dataclass(frozen=True)
class Withheld(Explained):
    """A 0 the submission earned by keeping a component from being measured (SPEC §6, "withholding
    never pays"): an ``Explained`` like any other score, with the reason the scorecard shows."""

    reason: str = ""


Result = Explained | NotScored
