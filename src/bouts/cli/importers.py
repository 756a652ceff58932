"""``bouts import humaneval|mbpp FILE``: turn a dataset into challenge directories. No logic here:
parsing lives in ``bouts.importers`` (pure), writing in ``bouts.importers.write_challenges``."""

from __future__ import annotations

import gzip
import itertools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bouts.cli._errors import print_error, terminal
from bouts.errors import BoutsError, InfrastructureError, InputError

if TYPE_CHECKING:
    from bouts.importers import ImportReport

import_app = typer.Typer(help="Import public coding-task datasets as challenges.", no_args_is_help=True)
EXIT_INPUT, EXIT_INFRA = 2, 3
GZIP_MAGIC = b"\x1f\x8b"

FileArg = Annotated[
    Path, typer.Argument(help="The dataset file (JSON lines, or MBPP's sanitized JSON array); gzip is read too.")
]
OutOpt = Annotated[Path, typer.Option("-o", "--out", help="Directory to write the challenges into.")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, help="Import only the first N tasks.")]
ProfileOpt = Annotated[str, typer.Option("--profile", help="Headline profile: engine (default) or composite.")]
OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="Replace challenge directories that exist.")]
NoVerifyOpt = Annotated[
    bool,
    typer.Option(
        "--no-verify", help="Skip running each reference against its own tests (faster; may ship failing tests)."
    ),
]
JobsOpt = Annotated[int, typer.Option("--jobs", min=1, help="Sandbox runs at once while verifying.")]
BatchOpt = Annotated[
    int, typer.Option("--batch", min=1, help="Tasks verified per sandbox run (1: each task on its own).")
]
ReportOpt = Annotated[Path | None, typer.Option("--report", help="Also write the import summary as JSON here.")]


def read_dataset(file: Path) -> str:
    """The dataset's text, gunzipped when it is gzip (by content, or a ``.gz`` suffix)."""
    try:
        data = file.read_bytes()
        if data[:2] == GZIP_MAGIC or file.suffix == ".gz":
            data = gzip.decompress(data)
        return data.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as e:
        raise InputError(f"cannot be read: {e}", file=str(file)) from None


def _run(
    dataset: str,
    file: Path,
    out: Path,
    *,
    limit: int | None,
    profile: str,
    overwrite: bool,
    verify: bool,
    jobs: int,
    batch: int,
    report_path: Path | None,
) -> None:
    # Imported here, not with the command line: ``bouts score`` and the rest never pay for them.
    from bouts.importers import (
        ImportReport,
        parse_humaneval,
        parse_mbpp,
        summarise,
        verify_challenges,
        write_challenges,
    )

    parser = {"humaneval": parse_humaneval, "mbpp": parse_mbpp}[dataset]
    err = terminal(stderr=True)
    try:
        if profile not in ("engine", "composite", "four-judge"):
            raise InputError("must be engine, composite or four-judge", field="profile")
        # Every record is parsed before anything is written: a bad record writes nothing.
        challenges = parser(read_dataset(file), source=str(file), profile=profile, limit=limit)
        if verify:
            from bouts.sandbox import get_sandbox

            started = time.perf_counter()
            done = itertools.count(1)

            def progress(_: object) -> None:  # every 100 tasks, so a long import shows it is alive
                n = next(done)
                if n % 100 == 0:
                    err.print(f"verified {n}/{len(challenges)} task(s)", highlight=False)

            verdicts = verify_challenges(
                challenges, sandbox=get_sandbox("bubblewrap"), jobs=jobs, batch=batch, on_verified=progress
            )
            report = summarise(
                verdicts, dataset=dataset, source=str(file), tasks_read=len(challenges),
                seconds=time.perf_counter() - started,
            )  # fmt: skip
            kept = [v.challenge for v in verdicts if v.challenge is not None]
        else:
            kept = challenges
            report = ImportReport(
                dataset=dataset, source=str(file), tasks_read=len(challenges), imported=len(kept),
                visible_tests=sum(c.visible_tests for c in kept), hidden_tests=sum(c.hidden_tests for c in kept),
                verified=False,
            )  # fmt: skip
        write_challenges(kept, out, overwrite=overwrite)
        if report_path is not None:
            report_path.write_text(report.model_dump_json(indent=2, by_alias=True) + "\n", encoding="utf-8")
    except BoutsError as exc:
        print_error(exc, err)
        raise typer.Exit(EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_INPUT) from None
    for line in summary_lines(report, out):
        typer.echo(line)


def summary_lines(report: ImportReport, out: Path) -> list[str]:
    """The human summary of an import: tasks, tests kept, examples dropped and tasks excluded, with why."""
    lines = [
        f"imported {report.imported} challenge(s) into {out} ({report.visible_tests} visible, "
        f"{report.hidden_tests} hidden tests) from {report.tasks_read} task(s)"
    ]
    if not report.verified:
        lines.append("not verified (--no-verify): references were not run against their tests")
        return lines
    lines.append(f"verified every reference against its own tests in the sandbox ({report.verify_seconds:.1f} s)")
    lines.append(f"dropped {len(report.dropped)} example(s) the reference fails")
    lines += [f"  {d.challenge} {d.suite} {d.test}: {d.reason}" for d in report.dropped]
    lines.append(f"excluded {len(report.excluded)} task(s)")
    lines += [f"  {x.challenge} (line {x.line}): {x.reason}" for x in report.excluded]
    return lines


@import_app.command()
def humaneval(
    file: FileArg,
    out: OutOpt = Path("challenges"),
    limit: LimitOpt = None,
    profile: ProfileOpt = "engine",
    overwrite: OverwriteOpt = False,
    no_verify: NoVerifyOpt = False,
    jobs: JobsOpt = 2,
    batch: BatchOpt = 50,
    report: ReportOpt = None,
) -> None:
    """Import HumanEval tasks: doctest examples visible, check(candidate) hidden."""
    _run(
        "humaneval", file, out, limit=limit, profile=profile, overwrite=overwrite,
        verify=not no_verify, jobs=jobs, batch=batch, report_path=report,
    )  # fmt: skip


@import_app.command()
def mbpp(
    file: FileArg,
    out: OutOpt = Path("challenges"),
    limit: LimitOpt = None,
    profile: ProfileOpt = "engine",
    overwrite: OverwriteOpt = False,
    no_verify: NoVerifyOpt = False,
    jobs: JobsOpt = 2,
    batch: BatchOpt = 50,
    report: ReportOpt = None,
) -> None:
    """Import MBPP tasks: the first test visible, the rest and challenge_test_list hidden."""
    _run(
        "mbpp", file, out, limit=limit, profile=profile, overwrite=overwrite,
        verify=not no_verify, jobs=jobs, batch=batch, report_path=report,
    )  # fmt: skip
