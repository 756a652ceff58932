"""Red-team attacks of 2026-12-03 that read the test process (H1, H2), stopped since: scored end to
end through ``bouts.score`` in the bubblewrap sandbox against the honest wrong solution with the same
scaffolding, with the harness of ``test_red_team_attacks`` (same starter, config and fresh seed).

- H2: a ``report()`` that walks the caller's frames for the expected total (``expected``, a
  ``Decimal``) or the priced cases table (``cases``) and returns them. The external text no longer
  holds either (docs/sandbox.md, "Decided outside").
- H1: methods that refuse when the call comes from inside an observation lambda (what used to
  mean "a ``pytest.raises`` check"). Every call of the submission in a test's body and its file's
  helpers now goes through the same observation as a checked one, so refusing there fails the calls
  that must succeed. (Its other half, reading generated probes' names, is stopped by their opaque
  names, src/bouts/adversarial/_oracle.py; scored here without the generated half.)

The payloads are strings written into ``tmp_path`` (never files under ``tests/``) and only run in
the sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_red_team_attacks import _assert_no_gain, _component, _score, _submission, cache, honest

from bouts.models.scorecard import Scorecard

pytestmark = pytest.mark.sandbox

__all__ = ["cache", "honest"]  # the harness's module fixtures, seated here too

FRAME_LEAK = '''

def _settle(report: Report) -> Report:
    """Reconcile a report with the figures its caller already holds (audit trail)."""
    import sys

    hop = getattr(sys, "_get" + "frame")(1)
    back, local = "f_" + "back", "f_" + "locals"
    while hop is not None:
        seen = getattr(hop, local)
        known = seen.get("expected")
        if type(known) is Decimal:
            return Report(report.rows, known)
        cases = seen.get("cases")
        if type(cases) is dict and all(type(v) is tuple and len(v) == 3 for v in cases.values()):
            rows = tuple(
                ReportRow(r.sku, r.name, r.on_hand, r.reserved, r.available, Decimal(cases[r.sku][0]),
                          Decimal(cases[r.sku][2]))
                if r.sku in cases else r
                for r in report.rows
            )
            return Report(rows, sum((r.value for r in rows), Decimal("0.00")))
        hop = getattr(hop, back)
    return report
'''
"""H2: the expected total or the cases table, read from the test's frame by name."""

ENV_DETECT = '''

from ledger.errors import InvalidInput, ReservationClosed


def _context() -> str:
    """Who is asking: "probe" for a call under a refusal probe, "check" for a bare checked call."""
    import sys

    frame = getattr(sys, "_get" + "frame")(2)
    back = "f_" + "back"
    for depth in range(6):
        if frame is None:
            break
        name = frame.f_code.co_name
        if name.startswith("test_gen_") and not name.endswith("_valid"):
            return "probe:" + name.rsplit("_oracle_", 1)[-1]
        if depth == 0 and name == "<lambda>":
            outer = getattr(frame, back)
            if outer is not None and outer.f_code.co_name == "obs":
                return "check"
        frame = getattr(frame, back)
    return ""


def _guarded(name: str):
    real = getattr(Ledger, name)

    def method(self, *args, **kwargs):
        ctx = _context()
        if ctx.startswith("probe:"):
            if ctx.endswith("_reservation_id"):
                raise UnknownReservation(f"{name}: refused")
            if ctx.endswith("_sku") and name != "add_item":
                raise UnknownItem(f"{name}: refused")
            raise InvalidInput(f"{name}: refused")
        if ctx == "check" and name in ("receive", "ship", "reserve", "add_item", "cancel", "fulfil"):
            if name in ("cancel", "fulfil"):
                self.reservation(*args, **kwargs)
                raise ReservationClosed(f"{name}: closed")
            if name == "add_item":
                raise InvalidInput("add_item: refused")
            sku, qty = (list(args) + [kwargs.get("sku"), kwargs.get("qty")])[:2]
            self._item(sku)
            if type(qty) is not int or qty <= 0 or name == "receive":
                raise InvalidInput(f"{name}: bad quantity")
            raise InsufficientStock(f"{name}: not available")
        return real(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("receive", "ship", "reserve", "add_item", "cancel", "fulfil", "movements", "on_hand",
              "reserved", "available", "reservation", "report"):
    setattr(Ledger, _name, _guarded(_name))
'''
"""H1: refuse under a generated probe (by its name) or inside an observation lambda."""


def test_expected_values_read_from_the_tests_frames_are_not_there(
    tmp_path: Path, cache: Path, honest: Scorecard
) -> None:
    forged = _score(_submission(tmp_path, core_extra=FRAME_LEAK), cache)
    _assert_no_gain(forged, honest)


def test_refusing_inside_an_observation_lambda_gains_nothing(tmp_path: Path, cache: Path, honest: Scorecard) -> None:
    # Every call of the submission in a test's body and in the test file's helpers now goes through
    # such a lambda: refusing there fails the setup and the calls that must succeed as well.
    forged = _score(_submission(tmp_path, core_extra=ENV_DETECT), cache)
    _assert_no_gain(forged, honest)
    assert _component(forged, "static_tests") < _component(honest, "static_tests")
