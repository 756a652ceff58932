"""``bouts run`` (an agent on a challenge, recorded and scored) and ``bouts inspect-scorecard`` (the
scorecards in an Inspect AI log). Parse, call ``bouts.agents``, render. The environment is read here
only: the model endpoint's URL and key. docs/agents.md."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from bouts.cli import render
from bouts.cli._errors import json_safe, print_error, terminal
from bouts.errors import BoutsError, InfrastructureError, InputError
from bouts.models.scorecard import Scorecard

EXIT_INPUT, EXIT_INFRA = 2, 3
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def register(app: typer.Typer) -> None:
    app.command(name="run")(run_cmd)
    app.command(name="inspect-scorecard")(inspect_scorecard_cmd)


def _fail(exc: BoutsError) -> typer.Exit:
    print_error(exc, terminal(stderr=True))
    return typer.Exit(EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_INPUT)


def run_cmd(
    challenge: Annotated[Path, typer.Argument(help="Challenge directory (SPEC §5).")],
    model: Annotated[str, typer.Option(help="Model id at the endpoint.")],
    harness: Annotated[str, typer.Option(help="Agent harness (registered in bouts.agents.harnesses).")] = (
        "mini-swe-agent"
    ),
    base_url: Annotated[
        str | None,
        typer.Option(help="OpenAI-compatible base URL (default: $BOUTS_MODEL_BASE_URL, $OPENAI_BASE_URL, OpenAI's)."),
    ] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the endpoint's API key.")] = (
        "OPENAI_API_KEY"
    ),
    out: Annotated[Path, typer.Option(help="New directory for the submission, workspace and scorecard.")] = Path(
        "bouts-run"
    ),
    step_limit: Annotated[int, typer.Option(help="Model calls at most.")] = 50,
    time_limit: Annotated[float | None, typer.Option(help="Wall seconds (default: the challenge's budget).")] = None,
    price_in: Annotated[float | None, typer.Option(help="USD per million prompt tokens (for the cost).")] = None,
    price_out: Annotated[float | None, typer.Option(help="USD per million completion tokens.")] = None,
    agent: Annotated[str | None, typer.Option(help="Agent name on the scorecard (default: harness/model).")] = None,
    judges: Annotated[str | None, typer.Option(help="Comma-separated judges to seat (default: all).")] = None,
    no_generated: Annotated[
        bool, typer.Option("--no-generated", help="Skip the adversarial tests generated from the code.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scorecard as JSON.")] = False,
) -> None:
    """Run an agent harness on a challenge in the sandbox; the engine records what it did and scores it."""
    from bouts.agents import ModelEndpoint, RunSettings, run_agent
    from bouts.pipeline import ScoreConfig

    try:
        if out.exists() and any(out.iterdir()):
            raise InputError(f"{out} already exists and is not empty; give --out a new directory", file=str(out))
        env_url = os.environ.get("BOUTS_MODEL_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
        url = base_url or env_url or DEFAULT_BASE_URL
        try:
            endpoint = ModelEndpoint(base_url=url, model=model, api_key=os.environ.get(api_key_env) or None,
                                     price_in_per_mtok=price_in, price_out_per_mtok=price_out)  # fmt: skip
        except ValueError as exc:
            raise InputError(f"bad model endpoint: {exc}", field="--base-url") from None
        out.mkdir(parents=True, exist_ok=True)
        settings = RunSettings(step_limit=step_limit, time_s=time_limit, agent=agent, record_dir=out)
        seated = None if judges is None else tuple(j for j in judges.split(",") if j and j != "none")
        config = ScoreConfig(judges=seated, adversarial_generation=False if no_generated else None)
        run = run_agent(challenge, harness, endpoint, out_dir=out, settings=settings, config=config)
    except BoutsError as exc:
        raise _fail(exc) from None
    card = run.scorecard
    (out / "scorecard.json").write_text(card.to_json(), encoding="utf-8")
    (out / "run.json").write_text(json.dumps(run.summary(), indent=2), encoding="utf-8")
    if as_json:
        typer.echo(json_safe(card.to_json()))
        return
    console = terminal()
    render.scorecard(console, card)
    console.print(provenance_line(card), highlight=False, markup=False)
    cost = f", ${run.usage.cost_usd:.4f}" if run.usage.cost_usd is not None else ""
    usage = run.usage
    console.print(f"trajectory recorded by bouts: {len(run.trajectory.events)} events ({run.exit_status or 'ended'}); "
                  f"model: {usage.requests} calls, {usage.tokens_in} in / {usage.tokens_out} out tokens{cost}",
                  highlight=False, markup=False)  # fmt: skip
    for e in run.exploits:
        console.print(f"stopped: {e.kind}: {e.evidence}", highlight=False, markup=False)
    console.print(f"submission, workspace and scorecard.json in {out}", highlight=False, markup=False)


def inspect_scorecard_cmd(
    log: Annotated[Path, typer.Argument(help="An Inspect AI log (.eval or .json) of a bouts/challenge task.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the scorecards as JSON (one per line).")] = False,
) -> None:
    """Show the Bouts scorecard of each sample of an Inspect AI eval log."""
    try:
        try:
            from inspect_ai.log import read_eval_log
        except ImportError:
            raise InputError("inspect-ai is not installed: pip install 'bouts[agents]'") from None
        try:
            samples = read_eval_log(str(log)).samples or []
        except (OSError, ValueError) as exc:
            raise InputError(f"not a readable Inspect log: {exc}", file=str(log)) from None
        scores = [score for sample in samples for score in (sample.scores or {}).values()]
        cards = [Scorecard.model_validate(s.metadata["scorecard"]) for s in scores if "scorecard" in (s.metadata or {})]
        if not cards:
            raise InputError("no Bouts scorecard in this log (was it a bouts/challenge task?)", file=str(log))
    except BoutsError as exc:
        raise _fail(exc) from None
    console = terminal()
    for card in cards:
        if as_json:
            typer.echo(json_safe(card.model_dump_json(by_alias=True)))
        else:
            render.scorecard(console, card)
            console.print(provenance_line(card), highlight=False, markup=False)


def provenance_line(card: Scorecard) -> str:
    """Where the scorecard's trajectory came from, in words (docs/agents.md#provenance)."""
    p = card.trajectory
    if p is None:
        return "trajectory: provenance not recorded (an older scorecard)"
    if p.source == "recorded":
        return f"trajectory: recorded by {p.recorded_by} ({p.harness}, {p.events} events)"
    return "trajectory: none" if p.source == "none" else f"trajectory: uploaded ({p.harness} log, {p.events} events)"
