"""``bouts serve``, ``bouts worker``, ``bouts leaderboard``, ``bouts submit``, ``bouts key``: the
service's drivers. They read the environment (``BOUTS_*``, see docs/service.md), build typed
settings and call the service; no business logic here."""

from __future__ import annotations

import json
import os
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.table import Table

from bouts.cli._errors import json_safe, markup_safe, plain, print_error, terminal
from bouts.errors import BoutsError
from bouts.service.config import ServiceSettings, settings_from_env

err = terminal(stderr=True)
EXIT_INPUT, EXIT_INFRA = 2, 3
DataDir = Annotated[Path | None, typer.Option(help="Data dir (BOUTS_DATA_DIR).")]
DbUrl = Annotated[str, typer.Option(help="Database URL (BOUTS_DB_URL); default SQLite in the data dir.")]
BrokerUrl = Annotated[str, typer.Option(help="Celery broker URL (BOUTS_BROKER_URL); none: local process pool.")]


def _settings(**overrides: object) -> ServiceSettings:
    try:
        return settings_from_env(os.environ).with_overrides(**overrides)
    except BoutsError as exc:
        print_error(exc, err)
        raise typer.Exit(EXIT_INPUT) from None


def _open_repository(settings: ServiceSettings):  # type: ignore[no-untyped-def]
    """The service's database, migrated; one line and exit 3 when it does not answer."""
    from sqlalchemy.exc import SQLAlchemyError

    from bouts.service.storage import open_repository

    try:
        return open_repository(settings.database_url)
    except SQLAlchemyError as exc:
        _database_down(settings, exc)


def _database_down(settings: ServiceSettings, exc: Exception) -> NoReturn:
    """``error: database <url without password>: <the driver's first line>``, exit 3 (infrastructure)."""
    from sqlalchemy.engine import make_url

    where = make_url(settings.database_url).render_as_string(hide_password=True)
    cause = getattr(exc, "orig", None) or exc
    first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    err.print(f"[bold red]error:[/] database {markup_safe(where)}: {markup_safe(first)}", highlight=False,
              soft_wrap=True)  # fmt: skip
    raise typer.Exit(EXIT_INFRA)


def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on (BOUTS_HOST).")] = "",
    port: Annotated[int | None, typer.Option(help="Port (BOUTS_PORT).")] = None,
    data_dir: DataDir = None,
    db_url: DbUrl = "",
    broker_url: BrokerUrl = "",
    workers: Annotated[int | None, typer.Option(help="Local pool processes (BOUTS_LOCAL_WORKERS).")] = None,
    challenge: Annotated[list[Path] | None, typer.Option(help="Challenge dir to register at start.")] = None,
) -> None:
    """Run the HTTP API (migrating the database first); scores locally unless a broker is set."""
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from bouts.service import logs
    from bouts.service.api import create_app
    from bouts.service.challenges import register_challenge

    settings = _settings(host=host, port=port, data_dir=data_dir, db_url=db_url, broker_url=broker_url,
                         local_workers=workers)  # fmt: skip
    try:
        logs.configure(settings.log_format)
        app = create_app(settings, repo=_open_repository(settings))
    except BoutsError as exc:
        print_error(exc, err)
        raise typer.Exit(EXIT_INPUT) from None
    except SQLAlchemyError as exc:
        _database_down(settings, exc)
    for path in challenge or []:
        try:
            info, _ = register_challenge(app.state.ctx.repo, settings.data_dir, path.resolve(), by="bouts serve")
        except BoutsError as exc:
            print_error(exc, err)
            raise typer.Exit(EXIT_INPUT) from None
        err.print(plain(f"challenge {info.slug} @ {info.content_hash[:12]}"))
    mode = f"celery via {settings.broker_url}" if settings.uses_celery else f"{settings.local_workers} local processes"
    err.print(f"bouts service on http://{settings.host}:{settings.port} ({mode})")
    # SIGTERM: uvicorn stops accepting, gives open requests and then running jobs (the dispatcher's
    # close) ``shutdown_grace_s`` each, and exits.
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info", proxy_headers=False, log_config=None,
                timeout_graceful_shutdown=max(1, int(settings.shutdown_grace_s)))  # fmt: skip


def worker(
    data_dir: DataDir = None,
    db_url: DbUrl = "",
    broker_url: BrokerUrl = "",
    concurrency: Annotated[int, typer.Option(help="Submissions scored at once by this worker.")] = 1,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "INFO",
) -> None:
    """Run a Celery worker that scores queued submissions (needs a broker)."""
    # Bounded SIGTERM, the running job handed back at once: bouts.service.worker.shutdown.
    from bouts.service.worker.run import run_worker

    settings = _settings(data_dir=data_dir, db_url=db_url, broker_url=broker_url)
    if not settings.uses_celery:
        err.print("[bold red]error:[/] a worker needs a broker: --broker-url or BOUTS_BROKER_URL")
        raise typer.Exit(EXIT_INPUT)
    _open_repository(settings).close()  # migrate before taking work
    try:
        run_worker(settings, concurrency=concurrency, loglevel=loglevel)
    except BoutsError as exc:
        print_error(exc, err)
        raise typer.Exit(EXIT_INPUT) from None


def leaderboard(
    challenge: Annotated[str, typer.Argument(help="Challenge id.")],
    url: Annotated[str, typer.Option(help="A server's base URL; without it, read the local database.")] = "",
    data_dir: DataDir = None,
    db_url: DbUrl = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print a challenge's leaderboard (SPEC §4)."""
    if url:
        import httpx

        r = httpx.get(f"{url.rstrip('/')}/api/v1/challenges/{challenge}/leaderboard", timeout=30)
        _check(r)
        rows = r.json()["standings"]
    else:
        from dataclasses import asdict

        from bouts.service.standings import standings

        repo = _open_repository(_settings(data_dir=data_dir, db_url=db_url))
        rows = [asdict(s) for s in standings(repo.submissions.attempts(challenge))]
        repo.close()
    if as_json:
        typer.echo(json_safe(json.dumps(rows, indent=2, ensure_ascii=False)))
        return
    table = Table(title=plain(f"{challenge} leaderboard"))
    for col in ("#", "agent", "final", "iterations", "time (s)", "trajectory", "shape"):
        table.add_column(col)
    for s in rows:
        time_s = "—" if s["time_s"] is None else f"{s['time_s']:g}"
        final = f"{s['final']} (provisional)" if s.get("provisional") else str(s["final"])
        table.add_row(str(s["rank"]), plain(s["agent"]), final, str(s["iterations"]), time_s,
                      plain(s["trajectory"]), plain(s["shape"]))  # fmt: skip
    terminal().print(table)


def submit(
    challenge: Annotated[str, typer.Argument(help="Challenge id on the server.")],
    submission: Annotated[Path, typer.Argument(help="Submission directory, .tar.gz or .zip.")],
    url: Annotated[str, typer.Option(envvar="BOUTS_URL", help="Server base URL.")] = "http://127.0.0.1:8000",
    key: Annotated[str, typer.Option(envvar="BOUTS_API_KEY", help="Your API key.")] = "",
    wait: Annotated[bool, typer.Option(help="Poll until scored.")] = True,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the score.")] = 1800,
) -> None:
    """Upload a submission to a server, wait for its score and print it."""
    import httpx

    headers = {"X-API-Key": key} if key else {}
    with tempfile.TemporaryDirectory() as tmp, httpx.Client(base_url=url.rstrip("/"), headers=headers,
                                                            timeout=120) as client:  # fmt: skip
        archive = _as_archive(submission, Path(tmp))
        with archive.open("rb") as fh:
            r = client.post(f"/api/v1/challenges/{challenge}/submissions",
                            files={"archive": (archive.name, fh, "application/octet-stream")})  # fmt: skip
        _check(r)
        body = r.json()
        err.print(plain(f"submission {body['id']}: {body['state']}"))
        deadline = time.monotonic() + timeout
        while wait and body["state"] in ("queued", "running"):
            if time.monotonic() > deadline:
                err.print("[bold red]error:[/] timed out waiting for the score")
                raise typer.Exit(EXIT_INFRA)
            time.sleep(1.0)
            r = client.get(f"/api/v1/submissions/{body['id']}")
            if r.status_code == 429:
                time.sleep(float(r.headers.get("retry-after", "5")))
                continue
            _check(r)
            body = r.json()
    if not wait:
        typer.echo(body["id"])
        return
    if body["state"] != "scored":
        err.print(f"[bold red]{markup_safe(body['state'])}:[/] {markup_safe(body.get('error') or '')}", highlight=False)
        raise typer.Exit(EXIT_INFRA if body["state"] == "failed_infra" else EXIT_INPUT)
    typer.echo(f"{body['final']}")


def key(
    role: Annotated[str, typer.Argument(help="agent or operator.")],
    agent: Annotated[str, typer.Option(help="The agent an agent key belongs to.")] = "",
    label: Annotated[str, typer.Option(help="Who holds the key (shown in audit columns).")] = "",
    data_dir: DataDir = None,
    db_url: DbUrl = "",
) -> None:
    """Create an API key in the local database and print it (only its hash is stored)."""
    repo = _open_repository(_settings(data_dir=data_dir, db_url=db_url))
    try:
        typer.echo(repo.catalog.create_key(role, agent or None, label))
    except ValueError as exc:
        err.print(f"[bold red]error:[/] {markup_safe(exc)}")
        raise typer.Exit(EXIT_INPUT) from None
    finally:
        repo.close()


def _as_archive(path: Path, tmp: Path) -> Path:
    if path.is_dir():
        out = tmp / f"{path.resolve().name}.tar.gz"
        with tarfile.open(out, "w:gz") as tar:
            tar.add(path, arcname=path.resolve().name)
        return out
    if not path.is_file():
        err.print(f"[bold red]error:[/] {markup_safe(path)}: does not exist")
        raise typer.Exit(EXIT_INPUT)
    return path


def _check(r: object) -> None:
    import httpx

    assert isinstance(r, httpx.Response)
    if r.is_success:
        return
    try:
        body = r.json()
        detail = body.get("detail") if isinstance(body, dict) else body
    except ValueError:
        detail = r.text[:500]
    err.print(f"[bold red]error {r.status_code}:[/] {markup_safe(detail)}", highlight=False)
    raise typer.Exit(EXIT_INPUT if r.status_code < 500 else EXIT_INFRA)


def register(app: typer.Typer) -> None:
    """Add the service's commands to the ``bouts`` CLI."""
    for command in (serve, worker, leaderboard, submit, key):
        app.command()(command)


