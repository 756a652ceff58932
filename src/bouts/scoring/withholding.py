"""SPEC §6 in one place: whose doing it is that a component was not measured, and what it scores.

- **Withholding never pays.** A component the submission itself kept from being measured (no
  trajectory where the challenge's profile weighs the trajectory components, a log that cannot be
  read, a deliverable left out, a judge failing on the submission's own content, code no judge can
  review, no code change) scores **0**, with the reason on the scorecard (:func:`settle`).
- **Only the platform's failures rescale.** A component not measured because of the platform (an LLM
  endpoint down, a scanner missing, an infrastructure failure, no judge configured) stays *not
  scored*: the profile rescales over the rest and the scorecard is provisional
  (``bouts.scoring.profiles``).

Every ``NotScored`` carries its cause (``NotScored.cause``, ``platform`` unless whoever made it knows
it was the submission's doing); this module turns the submission's into a 0. Pure. See
docs/scoring.md, "What a score never rewards".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bouts.scoring.catalogue import ENGINE_WEIGHTS, FOUR_JUDGE_WEIGHTS
from bouts.scoring.explain import NotScored, Result, Withheld

TRAJECTORY_COMPONENTS: tuple[str, ...] = ("process", "strategy", "recovery", "efficiency")
"""The components read from the agent's trajectory."""

TrajectoryState = Literal["present", "absent", "unreadable"]


def withheld(reason: str, math: Sequence[str] = ()) -> NotScored:
    """A component the submission kept from being measured: it scores 0 once settled."""
    return NotScored(reason, tuple(math), cause="submission")


def settle(name: str, result: Result) -> Result:
    """``result``, or 0 with the reason when it is not scored by the submission's own doing."""
    if isinstance(result, NotScored) and result.applies and result.cause == "submission":
        line = f"{name} = 0: {result.reason} (the submission's doing: scored 0, never rescaled away)"
        return Withheld(0.0, result.math + (line,), reason=result.reason)
    return result


def weighs_trajectory(profile: str) -> bool:
    """Whether a profile weighs a trajectory component: the composite and four-judge do, the engine
    (for challenges that expect no trajectory, such as imported HumanEval/MBPP tasks) does not."""
    if profile == "engine":
        return any(k in ENGINE_WEIGHTS for k in TRAJECTORY_COMPONENTS)
    if profile == "four-judge":
        return any(k in FOUR_JUDGE_WEIGHTS for k in TRAJECTORY_COMPONENTS)
    return True  # the composite weighs all four, at 5 % or more in every family


def without_trajectory(state: TrajectoryState, profile: str, detail: str = "") -> NotScored | None:
    """What each trajectory component is when the submission brought no readable trajectory (None:
    it did, and the trajectory judges' own verdicts stand). Where the challenge's ``profile`` weighs
    the trajectory it is the submission's doing (0); where it does not, the components do not apply
    and the other profiles shown rescale over the rest without being provisional."""
    if state == "present":
        return None
    if not weighs_trajectory(profile):
        return NotScored(f"the challenge's {profile} profile expects no trajectory", applies=False)
    why = "no trajectory in the submission" if state == "absent" else "the trajectory could not be read"
    if detail:
        why += f" ({detail})"
    return withheld(f"{why}, and the challenge's {profile} profile weighs it")
