"""``bouts stats --labels`` / ``--runs``: read the files, hand labelled runs to
``bouts.calibration.stats_validity`` (docs/calibration.md#validity). I/O only."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bouts.calibration.stats_labels import field_value, parse_labels, parse_runs
from bouts.calibration.stats_report import ValidityReport
from bouts.calibration.stats_validity import LabelledRun, ValidityError, run_from_scorecard, validity
from bouts.cli._common import challenge_id
from bouts.errors import InputError

SHOWN = 5
"""Run ids quoted in an error about unmatched runs."""


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such {what} file", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the {what} file: {e}", file=str(path)) from None


def _some(keys: list[str]) -> str:
    return ", ".join(repr(k) for k in keys[:SHOWN]) + (f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else "")


def scorecard_runs(scorecards: Path, labels: Path, *, challenge: str | None, match: str, id_field: str,
                   label: str | None, allow_unlabelled: bool) -> tuple[str, list[LabelledRun]]:  # fmt: skip
    from bouts.calibration import read_scorecards

    field, known = parse_labels(_read(labels, "labels"), source=str(labels), id_field=id_field, label=label)
    runs: list[LabelledRun] = []
    unlabelled: list[str] = []
    seen: set[str] = set()
    for card in read_scorecards(scorecards, challenge=challenge):
        raw = field_value(card.model_dump(by_alias=True, mode="json"), match)
        if raw is None or isinstance(raw, dict | list):
            raise ValidityError(f"a scorecard of agent {card.agent!r} has no run id in this field (set --match)",
                                file=str(scorecards), field=match)  # fmt: skip
        key = str(raw)
        if key in seen:
            raise ValidityError(f"two scorecards carry run id {key!r}: the labels cannot tell them apart",
                                file=str(scorecards), field=match)  # fmt: skip
        seen.add(key)
        if key not in known:
            unlabelled.append(key)
            continue
        runs.append(run_from_scorecard(card, key, known[key]))
    if unlabelled and not allow_unlabelled:
        raise ValidityError(f"{len(unlabelled)} scorecard(s) have no label: {_some(unlabelled)} "
                            "(label them, or pass --allow-unlabelled to leave them out)",
                            file=str(labels), field=id_field)  # fmt: skip
    missing = sorted(set(known) - seen)
    if missing:
        print(f"note: {len(missing)} labelled run(s) have no scorecard: {_some(missing)}", file=sys.stderr)
    if unlabelled:
        print(f"note: {len(unlabelled)} scorecard(s) without a label left out", file=sys.stderr)
    return field, runs


def trajectory_runs(challenge_dir: Path, runs_file: Path, *, id_field: str, label: str | None,
                    code: Path | None) -> tuple[str, list[LabelledRun]]:  # fmt: skip
    from bouts.calibration.stats_trajectories import judge_file, judge_input
    from bouts.loading import load_challenge

    if not challenge_dir.is_dir():
        raise InputError("--runs judges trajectories against a challenge: give its directory", file=str(challenge_dir))
    field, entries = parse_runs(_read(runs_file, "runs"), source=str(runs_file), id_field=id_field, label=label)
    challenge = load_challenge(challenge_dir)
    with tempfile.TemporaryDirectory(prefix="bouts-stats-") as empty:
        base = judge_input(challenge, code if code is not None else Path(empty))
        out = []
        for e in entries:
            path = (runs_file.parent / e.trajectory) if not Path(e.trajectory).is_absolute() else Path(e.trajectory)
            if not path.exists():
                raise InputError(f"line {e.line}: no such trajectory: {path}", file=str(runs_file), field="trajectory")
            out.append(judge_file(base, path, e.key, e.label))
    return field, out


def validity_report(challenge: str, *, scorecards: Path | None, labels: Path | None, runs: Path | None, match: str,
                    id_field: str, label: str | None, code: Path | None, bootstrap: int, seed: int,
                    allow_unlabelled: bool) -> ValidityReport:  # fmt: skip
    if runs is not None:
        if scorecards is not None or labels is not None:
            raise InputError("--runs carries its own labels: give it without --scorecards/--labels", field="runs")
        field, labelled = trajectory_runs(Path(challenge), runs, id_field=id_field, label=label, code=code)
    else:
        if scorecards is None or labels is None:
            raise InputError("--labels needs --scorecards (the runs it labels)", field="scorecards")
        field, labelled = scorecard_runs(scorecards, labels, challenge=challenge_id(challenge), match=match,
                                         id_field=id_field, label=label, allow_unlabelled=allow_unlabelled)  # fmt: skip
    return validity(labelled, label=field, bootstrap=bootstrap, seed=seed)
