"""``bouts check``, ``bouts stats`` and ``bouts review``: parse, call ``bouts.calibration``, render.

Registered on the main app by :func:`register` (one line in ``bouts.cli.main``).
"""

from __future__ import annotations

import getpass
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bouts.cli._common import challenge_id as _challenge_id
from bouts.cli._errors import json_safe, print_error, terminal
from bouts.errors import BoutsError, InfrastructureError

if TYPE_CHECKING:
    from collections.abc import Callable

    from bouts.calibration import ReviewItem
    from bouts.calibration.store import ReviewStore

EXIT_REFUSED = 1
EXIT_INPUT = 2
EXIT_INFRA = 3
DEFAULT_STORE = ".bouts/reviews"

review_app = typer.Typer(help="The review queue of judge disagreements (SPEC §3).", no_args_is_help=True)


def _fail(exc: BoutsError) -> typer.Exit:
    print_error(exc)
    return typer.Exit(EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_INPUT)


def check(
    challenge: Annotated[Path, typer.Argument(help="Challenge directory.")],
    runs: Annotated[int, typer.Option(help="Reference runs, each with the published and a fresh seed; 0 skips.")] = 5,
    anchors: Annotated[bool, typer.Option("--anchors/--no-anchors", help="Score the low/mid/high anchors.")] = True,
    sandbox: Annotated[str, typer.Option(help="Sandbox backend: bubblewrap, docker[:image=TAG,runtime=runc|runsc,"
                                          "tmp_mb=N] or none (unsafe); default: $BOUTS_SANDBOX or bubblewrap.")] = "",
    fresh_seed: Annotated[list[int] | None, typer.Option(help="Fresh seed of a run (repeat it).")] = None,
    write_quarantine: Annotated[bool, typer.Option(
        "--write-quarantine/--no-write-quarantine",
        help="Write quarantine.toml into the challenge (scoring reads it; removed when the list is empty).",
    )] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    judges: Annotated[
        str | None, typer.Option(help="Judges the anchors are scored with, as `bouts score --judges`.")
    ] = None,
    llm_panel: Annotated[
        Path | None, typer.Option(help="LLM judge panel file the anchors are scored with, as `bouts score`.")
    ] = None,
    advisories: Annotated[
        Path | None, typer.Option(help="OSV advisory store the anchors are scored with; default: $BOUTS_ADVISORIES.")
    ] = None,
    postgres: Annotated[
        str | None, typer.Option(help="PostgreSQL DSN the anchors are scored with; default: $BOUTS_POSTGRES_DSN.")
    ] = None,
    bands: Annotated[str, typer.Option(
        help="Where each anchor's final should land, e.g. low=0-34,mid=55-89,high=75-100 (the default; a level "
        "left out keeps its range): outside it, a warning that the anchors do not span the bands.",
    )] = "",
) -> None:
    """Is CHALLENGE fit to launch? Spec, test lint, repeated reference runs, anchors. Exit 1: errors found.
    The anchors are scored as `bouts score` scores (the same settings and variables). A check without the
    reference runs (--runs 0) or the anchors (--no-anchors) never clears a launch: launch false, exit 0
    when it found no error."""
    from bouts.cache import default_cache_dir
    from bouts.calibration import CheckConfig, check_challenge
    from bouts.calibration.anchors import parse_bands
    from bouts.cli import calibration_render as render
    from bouts.cli.advisories import store_path
    from bouts.score_settings import ScoreSettings, configure, parse_judges

    chosen_sandbox = sandbox or os.environ.get("BOUTS_SANDBOX", "bubblewrap")
    try:
        scoring = configure(ScoreSettings(
            sandbox=chosen_sandbox, judges=None if judges is None else parse_judges(judges) or (),
            llm_panel=llm_panel, advisories=store_path(advisories),
            postgres_dsn=postgres or os.environ.get("BOUTS_POSTGRES_DSN"), cache_dir=default_cache_dir(os.environ),
        ), os.environ).config if anchors else None  # fmt: skip
        config = CheckConfig(
            runs=runs, anchors=anchors, sandbox=chosen_sandbox, fresh_seeds=fresh_seed or None,
            write_quarantine=write_quarantine, scoring=scoring, bands=parse_bands(bands),
        )  # fmt: skip
        report = check_challenge(challenge, config)
    except BoutsError as exc:
        raise _fail(exc) from None
    if as_json:
        typer.echo(json_safe(report.to_json()))
    else:
        render.check(terminal(), report, str(challenge))
    if any(p.level == "error" for p in report.problems) or (not report.launch and not report.incomplete):
        raise typer.Exit(EXIT_REFUSED)


def stats(
    challenge: Annotated[str, typer.Argument(help="Challenge directory or id (filters the scorecards).")],
    scorecards: Annotated[
        Path | None, typer.Option(help="A directory of scorecard .json/.jsonl files, or one file.")
    ] = None,
    labels: Annotated[Path | None, typer.Option(
        help="Outcome labels (CSV or JSON lines: run id + resolved or a rating): print the validity report.",
    )] = None,
    runs: Annotated[Path | None, typer.Option(
        help="JSON lines of {trajectory, resolved|rating[, run_id]}: judge each trajectory against CHALLENGE "
        "(a directory) with the trajectory judges and print the validity report.",
    )] = None,
    match: Annotated[str, typer.Option(help="Scorecard field (dotted) that holds the run id of --labels.")] = "agent",
    id_field: Annotated[str, typer.Option("--id-field", help="The run id field of --labels / --runs.")] = "run_id",
    label: Annotated[str | None, typer.Option(help="The label field (default: resolved, else rating).")] = None,
    code: Annotated[Path | None, typer.Option(help="With --runs: the code/ the judges read (default: empty).")] = None,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples for the 95% intervals.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    allow_unlabelled: Annotated[bool, typer.Option(
        "--allow-unlabelled", help="Leave out scorecards --labels has no label for (default: refuse).",
    )] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Judge statistics over a launched challenge's scorecards (findings from 50 attempts on); with
    --labels or --runs, the validity report: does each component separate runs by their outcome?"""
    from bouts.calibration import attempt_from_scorecard, read_scorecards, summarise
    from bouts.cli import calibration_render as render

    if runs is not None or labels is not None:
        from bouts.cli.calibration_validity import validity_report

        try:
            report = validity_report(
                challenge, scorecards=scorecards, labels=labels, runs=runs, match=match, id_field=id_field,
                label=label, code=code, bootstrap=bootstrap, seed=seed, allow_unlabelled=allow_unlabelled,
            )  # fmt: skip
        except BoutsError as exc:
            raise _fail(exc) from None
        if as_json:
            typer.echo(json_safe(report.to_json()))
        else:
            render.validity(terminal(), report)
        return
    if scorecards is None:
        raise _fail(BoutsError("give --scorecards (or --runs with labelled trajectories)", field="scorecards"))
    try:
        challenge_id = _challenge_id(challenge)
        cards = read_scorecards(scorecards, challenge=challenge_id)
    except BoutsError as exc:
        raise _fail(exc) from None
    report = summarise([attempt_from_scorecard(c) for c in cards], challenge=challenge_id)
    if as_json:
        typer.echo(json_safe(report.to_json()))
    else:
        render.stats(terminal(), report)


StoreOpt = Annotated[Path | None, typer.Option("--store", help=f"Review store directory (default: $BOUTS_REVIEW_STORE or {DEFAULT_STORE}).")]  # noqa: E501
ByOpt = Annotated[str | None, typer.Option("--by", help="Who decides (default: the current user).")]
WhyOpt = Annotated[str, typer.Option("--reason", help="Why: recorded in the item's history.")]
UrlOpt = Annotated[str, typer.Option("--url", help="A running service's base URL: use its review queue, not --store.")]
KeyOpt = Annotated[str, typer.Option("--key", envvar="BOUTS_API_KEY", help="Operator API key for --url.")]
OutcomeOpt = Annotated[str | None, typer.Option(
    "--outcome", help="Level 3 (human arbitration) only, and required there: both_valid, rubric_fixed or judge_bug.",
)]  # fmt: skip


def _store(path: Path | None, url: str = "", key: str = "") -> ReviewStore:
    """The local review store, or with ``url`` the queue a running service keeps (docs/service.md)."""
    from bouts.calibration import JsonReviewStore

    if url:
        from bouts.service.client import HttpReviewStore

        return HttpReviewStore(url, key)
    return JsonReviewStore(path or Path(os.environ.get("BOUTS_REVIEW_STORE", DEFAULT_STORE)))


def _who(by: str | None) -> str:
    return by or os.environ.get("BOUTS_REVIEWER") or getpass.getuser()


@review_app.command("collect")
def review_collect(
    scorecards: Annotated[Path, typer.Argument(help="Scorecard .json/.jsonl files (a directory or one file).")],
    store: StoreOpt = None,
) -> None:
    """Queue every flagged scorecard not queued yet (judges apart, a panel that could not agree, a bright
    line, a judge failure, a provisional card: level 1; gray integrity beside high strategy: level 2)."""
    from bouts.calibration import collect, read_scorecards

    try:
        st = _store(store)
        known = {i.id for i in st.list()}
        items = collect(read_scorecards(scorecards), known, actor="bouts review collect", at=datetime.now(UTC))
        for item in items:
            st.put(item, expected_version=None)
    except BoutsError as exc:
        raise _fail(exc) from None
    typer.echo(f"queued {len(items)} new item(s); {len(known) + len(items)} in the queue")


@review_app.command("list")
def review_list(
    store: StoreOpt = None,
    challenge: Annotated[str | None, typer.Option(help="Only this challenge id.")] = None,
    status: Annotated[str | None, typer.Option(help="open or decided.")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    url: UrlOpt = "",
    key: KeyOpt = "",
) -> None:
    """List the queue."""
    from bouts.cli import calibration_render as render

    if status not in (None, "open", "decided"):
        raise _fail(BoutsError("must be open or decided", field="status"))
    try:
        items = _store(store, url, key).list(challenge=challenge, status=status)  # type: ignore[arg-type]
    except BoutsError as exc:
        raise _fail(exc) from None
    if as_json:
        typer.echo(json_safe("[" + ",".join(i.model_dump_json(by_alias=True) for i in items) + "]"))
    else:
        render.review_list(terminal(), items)


def _get(store: Path | None, item_id: str, url: str = "", key: str = "") -> tuple[ReviewStore, ReviewItem]:
    from bouts.calibration import ReviewError

    st = _store(store, url, key)
    item = st.get(item_id)
    if item is None:
        raise ReviewError("no such review item", field=item_id)
    return st, item


@review_app.command("show")
def review_show(item_id: str, store: StoreOpt = None, as_json: Annotated[bool, typer.Option("--json")] = False,
                url: UrlOpt = "", key: KeyOpt = "") -> None:  # fmt: skip
    """One item with its whole history."""
    from bouts.cli import calibration_render as render

    try:
        _, item = _get(store, item_id, url, key)
    except BoutsError as exc:
        raise _fail(exc) from None
    if as_json:
        typer.echo(json_safe(item.model_dump_json(by_alias=True, indent=2)))
    else:
        render.review_item(terminal(), item)


@review_app.command("escalate")
def review_escalate(item_id: str, reason: WhyOpt, store: StoreOpt = None, by: ByOpt = None, url: UrlOpt = "",
                   key: KeyOpt = "") -> None:  # fmt: skip
    """Move an open item up one level: 1 statistical flag → 2 rubric review → 3 human arbitration."""
    from bouts.calibration import escalate

    _transition(item_id, store, lambda i: escalate(i, actor=_who(by), at=datetime.now(UTC), reason=reason), url, key)


@review_app.command("decide")
def review_decide(
    item_id: str, reason: WhyOpt,
    score: Annotated[float, typer.Option(min=0, max=100, help="The decided score (0-100).")],
    store: StoreOpt = None, by: ByOpt = None, url: UrlOpt = "", key: KeyOpt = "", outcome: OutcomeOpt = None,
) -> None:  # fmt: skip
    """Decide an open item: SCORE becomes the current score (the leaderboard's). A level-3 decision
    names its --outcome."""
    from bouts.calibration import decide

    _transition(item_id, store, lambda i: decide(i, actor=_who(by), at=datetime.now(UTC), reason=reason, score=score,
                                                 outcome=outcome), url, key)  # fmt: skip


@review_app.command("overturn")
def review_overturn(
    item_id: str, reason: WhyOpt,
    challenge: Annotated[Path, typer.Option(help="The challenge directory the submission was scored against.")],
    submission: Annotated[Path, typer.Option(help="The submission (directory or archive) the item is about.")],
    sandbox: Annotated[str, typer.Option(help="Sandbox backend for the re-score.")] = "bubblewrap",
    store: StoreOpt = None, by: ByOpt = None, url: UrlOpt = "", key: KeyOpt = "", outcome: OutcomeOpt = None,
) -> None:  # fmt: skip
    """Overturn an item's integrity bright line: re-score the submission without it (SPEC §2) and
    decide the item at the re-score's final."""
    from bouts.calibration import overturn
    from bouts.pipeline import ScoreConfig, score

    try:
        _, item = _get(store, item_id, url, key)
        rescored = score(challenge, submission, config=ScoreConfig(sandbox=sandbox, overturned=item.bright_lines))
    except BoutsError as exc:
        raise _fail(exc) from None
    _transition(item_id, store, lambda i: overturn(i, rescored, actor=_who(by), at=datetime.now(UTC), reason=reason,
                                                   outcome=outcome), url, key)  # fmt: skip


@review_app.command("appeal")
def review_appeal(item_id: str, reason: WhyOpt, store: StoreOpt = None, by: ByOpt = None, url: UrlOpt = "",
                 key: KeyOpt = "") -> None:  # fmt: skip
    """Reopen a decided item one level up; its decisions stay in the history."""
    from bouts.calibration import appeal

    _transition(item_id, store, lambda i: appeal(i, actor=_who(by), at=datetime.now(UTC), reason=reason), url, key)


def _transition(item_id: str, store: Path | None, step: Callable[[ReviewItem], ReviewItem], url: str = "",
                key: str = "") -> None:  # fmt: skip
    from bouts.calibration import current_score

    try:
        st, item = _get(store, item_id, url, key)
        new = step(item)
        st.put(new, expected_version=item.version)
    except BoutsError as exc:
        raise _fail(exc) from None
    typer.echo(f"{new.id}: {new.history[-1].kind}, level {new.level} ({new.level_name}), "
               f"{new.status}, current score {current_score(new)}")  # fmt: skip


def register(app: typer.Typer) -> None:
    """Add ``check``, ``stats`` and ``review`` to the ``bouts`` app."""
    app.command(name="check")(check)
    app.command(name="stats")(stats)
    app.add_typer(review_app, name="review")
