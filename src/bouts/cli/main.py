"""The ``bouts`` command line: parse, call the library, render. No business logic here."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bouts import __version__
from bouts.cli._common import correctness_judges as _correctness_judges
from bouts.cli._errors import json_safe, plain, print_error, terminal
from bouts.cli.advisories import advisories_app, store_path
from bouts.cli.agents import register as register_agents
from bouts.cli.cache import cache_app
from bouts.cli.calibration import register as register_calibration
from bouts.cli.eval import register as register_eval
from bouts.cli.importers import import_app
from bouts.cli.new import new_app
from bouts.cli.sandbox import sandbox_app
from bouts.cli.service import register as register_service
from bouts.cli.trajectory import trajectory_app
from bouts.errors import BoutsError, ComputeInputError, InfrastructureError, WeightsError
from bouts.scoring.adjustments import Confidence
from bouts.scoring.compute import ComputeRequest, compute
from bouts.scoring.weights import COMPOSITE_COMPONENTS, FAMILIES, resolve_weights

app = typer.Typer(
    name="bouts",
    help="Bouts scoring engine: unforgeable, explained scores for AI coding agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(trajectory_app, name="trajectory")
app.add_typer(import_app, name="import")
app.add_typer(advisories_app, name="advisories")
app.add_typer(cache_app, name="cache")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(new_app, name="new")
register_calibration(app)
register_agents(app)
register_eval(app)
register_service(app)
err = terminal(stderr=True)

EXIT_INPUT = 2
EXIT_INFRA = 3


def _fail(exc: BoutsError) -> typer.Exit:
    print_error(exc, err)
    return typer.Exit(EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_INPUT)


@app.command()
def version() -> None:
    """Print the engine version."""
    typer.echo(__version__)


@app.command()
def score(
    challenge: Annotated[Path, typer.Argument(help="Challenge directory (SPEC §5).")],
    submission: Annotated[Path, typer.Argument(help="Submission directory, .tar.gz or .zip.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the scorecard as JSON.")] = False,
    sandbox: Annotated[str, typer.Option(help="Sandbox backend: bubblewrap (default), docker (options: "
                                          "docker:image=TAG,runtime=runc|runsc,tmp_mb=N) or none (unsafe); "
                                          "default $BOUTS_SANDBOX.")] = "",
    seed: Annotated[int | None, typer.Option(help="Override the published seed.")] = None,
    fresh_seed: Annotated[int | None, typer.Option(help="Hidden tests' second-phase seed (default: random).")] = None,
    adversarial_seed: Annotated[int | None, typer.Option(help="Seed of the generated adversarial tests.")] = None,
    reproduce: Annotated[Path | None, typer.Option(
        help="A stored scorecard (JSON, as --json prints or the service serves): score with the seeds it records.",
    )] = None,
    tests: Annotated[bool, typer.Option("--tests", help="List every test outcome.")] = False,
    judges: Annotated[
        str | None, typer.Option(help="Comma-separated judges to seat (default: every registered judge; 'none').")
    ] = None,
    llm_panel: Annotated[
        Path | None,
        typer.Option(help="LLM judge panel file (TOML, docs/llm-judges.md) to seat beside the offline judges."),
    ] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="Engine cache: reference runs and scorecards (default: $BOUTS_CACHE_DIR or ~/.cache/bouts)."),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Score afresh: do not read a cached scorecard (the new one is stored).")
    ] = False,
    tests_only: Annotated[
        bool,
        typer.Option(
            "--tests-only",
            help="Run only what feeds correctness: every test, no judge of the other components (the "
            "scorecard says what was not run).",
        ),
    ] = False,
    no_generated: Annotated[
        bool, typer.Option("--no-generated", help="Do not generate adversarial tests from the submitted code.")
    ] = False,
    advisories: Annotated[
        Path | None,
        typer.Option(help="OSV advisory store (`bouts advisories import`) to check pinned dependencies against; "
                     "default: $BOUTS_ADVISORIES; none: dependencies are not checked (the scorecard says so)."),
    ] = None,
    postgres: Annotated[
        str | None,
        typer.Option(
            help="libpq DSN of a PostgreSQL server over its unix socket, for challenges that use one "
            "(e.g. 'host=/var/run/postgresql dbname=test user=postgres'); default: $BOUTS_POSTGRES_DSN."
        ),
    ] = None,
) -> None:
    """Score a submission against a challenge and print the breakdown."""
    from bouts.cache import Store, default_cache_dir
    from bouts.cli import render
    from bouts.result_cache import score as run_score
    from bouts.score_settings import ScoreSettings, configure, parse_judges

    try:
        chosen = None if judges is None else parse_judges(judges) or ()
        if tests_only:
            chosen = _correctness_judges(chosen)
        cache_dir = cache_dir or default_cache_dir(os.environ)
        configured = configure(ScoreSettings(
            sandbox=sandbox or os.environ.get("BOUTS_SANDBOX", "bubblewrap"), judges=chosen, llm_panel=llm_panel,
            advisories=store_path(advisories), postgres_dsn=postgres or os.environ.get("BOUTS_POSTGRES_DSN"),
            cache_dir=cache_dir,
        ), os.environ)  # fmt: skip
        config = replace(configured.config, seed=seed, fresh_seed=fresh_seed, adversarial_seed=adversarial_seed,
                         adversarial_generation=False if no_generated else None)  # fmt: skip
        if reproduce is not None:
            config = config.reproducing(_stored_scorecard(reproduce))
        results = Store.open(cache_dir, "results")
    except BoutsError as exc:
        raise _fail(exc) from None
    console = terminal(stderr=as_json)
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not sys.stderr.isatty(),
    )
    task_id = None

    def on_start(ch: object, n_files: int) -> None:
        nonlocal task_id
        task_id = progress.add_task("running tests", total=None)

    def on_result(result: object) -> None:
        if task_id is not None:
            progress.advance(task_id)

    try:
        with progress:
            scored = run_score(
                challenge, submission, config=config, cache=results, refresh=no_cache, progress=on_result,
                on_start=on_start, judge_material=configured.judge_material,
            )  # fmt: skip
    except BoutsError as exc:
        raise _fail(exc) from None
    card = scored.card
    if scored.cached:
        err.print(plain(f"cached scorecard from {cache_dir} (same challenge, submission, engine, judges and "
                        "seeds); --no-cache scores afresh"))  # fmt: skip
    if as_json:
        typer.echo(json_safe(card.to_json()))
    else:
        render.scorecard(console, card, show_tests=tests, behaviours=_behaviours(challenge) if tests else None)
    if card.infra_error is not None:  # the scorecard says what broke; the exit code says it was not the agent
        err.print(plain(f"the engine's environment failed, nothing was scored as the agent's: {card.infra_error}"))
        raise typer.Exit(EXIT_INFRA)


def _behaviours(challenge: Path) -> dict[str, str] | None:
    """The behaviour each hidden test varies, for ``--tests`` (None when the challenge does not load)."""
    from bouts.authoring.behaviours import hidden_behaviours
    from bouts.loading import load_challenge

    try:
        return hidden_behaviours(load_challenge(challenge))
    except BoutsError:
        return None


def _stored_scorecard(path: Path) -> Any:
    """A scorecard file: ``bouts score --json`` output, or the service's answer (its ``scorecard``)."""
    import json

    from pydantic import ValidationError

    from bouts.errors import InputError
    from bouts.models.scorecard import Scorecard

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Scorecard.model_validate(data.get("scorecard", data) if isinstance(data, dict) else data)
    except (OSError, ValueError, ValidationError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"not a readable scorecard: {first}", file=str(path), field="reproduce") from None


def _parse_values(pairs: list[str]) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise ComputeInputError(f"expected name=value, got '{pair}'")
        parts = raw.replace("/", ",").split(",")
        try:
            values[name.strip()] = [float(p) for p in parts if p.strip()]
        except ValueError:
            raise ComputeInputError(f"'{raw}' is not a number (or comma-separated numbers)", field=name) from None
        if not values[name.strip()]:
            raise ComputeInputError("has no value", field=name)
    return values


def _parse_weights(text: str) -> dict[str, float]:
    parts = text.replace(",", "/").split("/")
    if len(parts) != len(COMPOSITE_COMPONENTS):
        raise WeightsError(
            f"give five weights objective/process/strategy/recovery/efficiency in percent, got '{text}'",
            field="weights",
        )
    try:
        return {name: float(p) / 100 for name, p in zip(COMPOSITE_COMPONENTS, parts, strict=True)}
    except ValueError:
        raise WeightsError(f"'{text}' is not five numbers", field="weights") from None


@app.command(name="compute")
def compute_cmd(
    profile: Annotated[str, typer.Argument(help="engine, four-judge or composite.")],
    values: Annotated[list[str] | None, typer.Argument(help="component=score pairs, e.g. static_tests=90.")] = None,
    family: Annotated[str, typer.Option(help=f"Composite family: {', '.join(FAMILIES)}.")] = "default",
    weights: Annotated[str | None, typer.Option(help="Custom composite weights in percent, o/p/s/r/e.")] = None,
    integrity: Annotated[float, typer.Option(help="Integrity adjustment, −25..+10.")] = 0.0,
    exploit: Annotated[float, typer.Option(help="Exploit penalties to subtract (≥ 0).")] = 0.0,
    calibration: Annotated[float | None, typer.Option(help="Calibration adjustment, ±5.")] = None,
    confidence: Annotated[str | None, typer.Option(help="Stated confidence: confident, unsure or none.")] = None,
    threshold: Annotated[float, typer.Option(help="Correctness score that counts as correct.")] = 75.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Compute a profile from component scores by hand and show every line of math.

    Example: bouts compute engine static_tests=90 adversarial=70 code_quality=72 deliverables=74.5
    security=95 stability=100. The four-judge and composite profiles take objective= or the six
    engine components it is made of; --confidence is judged by correctness= (or static_tests and
    adversarial).
    """
    from bouts.cli import render

    try:
        if confidence is not None and confidence not in ("confident", "unsure", "none"):
            raise ComputeInputError("must be confident, unsure or none", field="confidence")
        if weights and family != "default":
            raise WeightsError("give --family or --weights, not both", field="weights")
        resolved = resolve_weights(family, _parse_weights(weights) if weights else None)
        result, panels = compute(
            ComputeRequest(
                profile=profile,
                values=_parse_values(values or []),
                weights=resolved,
                integrity_adjustment=integrity,
                exploit_penalties=exploit,
                calibration=calibration,
                confidence=cast(Confidence | None, confidence),
                correct_threshold=threshold,
            )
        )
    except BoutsError as exc:
        raise _fail(exc) from None
    if as_json:
        payload = {
            "profile": result.profile,
            "final": result.final,
            "raw": result.raw,
            "band": result.band,
            "provisional": result.provisional,
            "missing": list(result.missing),
            "components": {
                k: {"score": v.score, "weight": v.weight, "effective_weight": v.effective_weight, "points": v.points}
                for k, v in result.contributions.items()
            },
            "adjustments": dict(result.adjustments),
            "flags": [{"code": "human_review", "message": p.score.math[0]} for p in panels if p.human_review],
            "math": list(result.math),
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        render.profile_result(terminal(), result)
        for p in panels:
            if p.human_review:
                err.print("⚑ human_review: Judges couldn't agree — code may be confusing or unconventional")


def main() -> None:  # pragma: no cover - console entry point
    app()
