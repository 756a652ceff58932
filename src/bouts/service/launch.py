"""The launch gate (issue 16, SPEC §5 launch gates; docs/service.md, "Launch gate"): a registered
challenge version takes submissions only once its latest launch check passed, or an operator forced
it open (recorded: who, when, why). Pure: ``launch_gate`` reads what ``Catalog`` returns.

- A *launch check* is a ``bouts check`` run through the service that ran the reference
  (``runs`` >= 1, ``bouts.service.storage.catalog.LAUNCH_MIN_RUNS``); one that skipped it says
  nothing about whether the tests pass on the reference.
- The *latest* one is the last to finish with a verdict (``done``): a check still queued or
  running changes nothing until it finishes, and one that failed on the infrastructure
  (``failed_infra``) is no verdict on the challenge.
- A force outranks a failed check (it is the operator's explicit decision, shown on the challenge
  page) and holds for the version it was given on: a changed challenge registers as a new version,
  closed until it is checked or forced again.
- The operator's open/close switch (``active``) is separate: a challenge takes submissions when it
  is on *and* the gate is open.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bouts.service.storage.records import ChallengeInfo, CheckSummary, ForcedOpen

GateState = Literal["passed", "forced", "failed", "unchecked"]


@dataclass(frozen=True)
class LaunchGate:
    open: bool
    """The gate lets submissions in (passed or forced)."""
    state: GateState
    reason: str
    """Why, in one sentence: names the check (id, finish time) or the force (who, when, why)."""
    check: CheckSummary | None
    pending: CheckSummary | None
    forced: ForcedOpen | None


def launch_gate(info: ChallengeInfo) -> LaunchGate:
    check, pending, forced = info.checked, info.pending_check, info.forced
    passed = check is not None and check.launch is True
    if passed:
        assert check is not None
        state: GateState = "passed"
        reason = f"its latest launch check {check.id} ({_when(check)}) passed"
    elif forced is not None:
        state = "forced"
        reason = f"forced open by {forced.by} at {_stamp(forced.at)}: {forced.reason}"
    elif check is not None:
        state = "failed"
        reason = (f"its latest launch check {check.id} ({_when(check)}) refused the launch; "
                  f"its report: /api/v1/checks/{check.id}/report")  # fmt: skip
    else:
        state = "unchecked"
        reason = f"no launch check (runs >= 1) of its current version {info.content_hash[:12]} has finished"
    if pending is not None and state in ("failed", "unchecked"):
        reason += f"; check {pending.id} is {pending.state}"
    return LaunchGate(open=state in ("passed", "forced"), state=state, reason=reason, check=check, pending=pending,
                      forced=forced)  # fmt: skip


def refusal(info: ChallengeInfo, gate: LaunchGate) -> str:
    """The message of an upload refused by the gate: the reason and what an operator can do."""
    base = f"/api/v1/challenges/{info.slug}"
    return (f"challenge '{info.slug}' is not open for submissions: {gate.reason}. An operator runs a launch "
            f"check (POST {base}/checks) or forces it open with a reason (POST {base}/force-open)")  # fmt: skip


def _when(check: CheckSummary) -> str:
    return f"finished {_stamp(check.finished_at)}" if check.finished_at else f"asked for {_stamp(check.created_at)}"


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC")
