"""Typed settings of the service. Built by the drivers (``bouts serve``/``bouts worker``) from their
options and the environment (``settings_from_env``); every other module receives them explicitly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from bouts.errors import InputError

MiB = 1024 * 1024
ENV_PREFIX = "BOUTS_"


@dataclass(frozen=True)
class ServiceSettings:
    """Every setting of the service; each field is also ``BOUTS_<NAME>`` in the environment."""

    data_dir: Path = Path(".bouts/service")
    """Where the embedded database, uploaded archives and challenge snapshots live. Workers on other
    machines must see the same directory (a shared filesystem)."""
    db_url: str = ""
    """SQLAlchemy URL; empty: SQLite at ``<data_dir>/bouts.db``. PostgreSQL:
    ``postgresql+psycopg://user@host/db``."""
    broker_url: str = ""
    """Celery broker (``redis://host:6379/0``); empty: score in a local process pool."""
    result_backend: str = ""
    """Celery result backend; empty: none (results live in the database)."""
    queue: str = "bouts-scoring"
    """Celery queue the API enqueues to and workers consume."""
    local_workers: int = 2
    """Processes of the local pool (no broker)."""
    sandbox: str = "bubblewrap"
    """Sandbox backend workers score with."""
    score_workers: int = 2
    """Tests run at once inside one scoring."""
    judges: str = ""
    """Comma-separated judges to seat (``bouts score --judges``); empty: every registered judge."""
    llm_panel: str = ""
    """LLM judge panel file (TOML, docs/llm-judges.md; ``bouts score --llm-panel``) whose judges sit
    beside the offline ones; the API keys come from the variables it names. Empty: no LLM judge."""
    postgres_dsn: str = ""
    """libpq DSN of a PostgreSQL server over its unix socket for challenges that use one, the same
    variable ``bouts score`` reads (``host=/var/run/postgresql dbname=test user=postgres``); empty:
    such challenges run their other variants."""
    advisories: str = ""
    """The OSV advisory store (``bouts advisories import``), the same variable ``bouts score`` reads;
    empty: dependencies are not checked (the scorecard says so)."""
    agent_models: str = ""
    """Models the service may run agents with (TOML, ``[models.<name>]`` tables: ``base_url``,
    ``model``, ``api_key_env``, prices; docs/agents.md "On the service"); empty: the service runs
    no agents, ``POST .../runs`` is refused. Keys come from the workers' environment."""
    max_upload_bytes: int = 20 * MiB
    """Largest request body of an upload; refused (413) while streaming, before it is stored."""
    max_retries: int = 3
    """Infrastructure failures retried before a submission is marked failed_infra."""
    retry_backoff_s: float = 5.0
    """First retry delay; doubles on each retry."""
    visibility_timeout_s: int = 3600
    """Redis: an unacknowledged task (its worker died) is redelivered after this long."""
    lease_s: float = 8.0
    """Liveness: a running job's worker stamps its heartbeat every ``lease_s / 4`` (2 s by default);
    a job with no heartbeat for this long (four missed beats) has lost its worker and is handed back
    to the queue, first in line, by the recovery pass (every ``lease_s / 4`` too). The heartbeat, not
    the job's length, keeps a job: a scoring may run for hours."""
    shutdown_grace_s: float = 20.0
    """On SIGTERM, how long running jobs may take to finish before they are stopped and handed back."""
    rate_per_minute: float = 120.0
    """Token-bucket refill per API key (or per client address without a key)."""
    rate_burst: int = 60
    """Token-bucket capacity."""
    upload_rate_per_minute: float = 20.0
    """Separate, tighter bucket for uploads."""
    orphan_grace_s: float = 3600.0
    """At start, files an interrupted upload left under the data dir (staged uploads, archives no
    submission names) older than this are removed; younger ones may be another API's upload."""
    operator_key: str = ""
    """If set, a plaintext operator key registered (hashed) at start: the bootstrap credential."""
    host: str = "127.0.0.1"
    port: int = 8000
    log_format: str = "json"
    """``bouts serve``/``bouts worker`` log lines: ``json`` (one object a line, with the request id) or ``text``."""
    metrics_port: int = 0
    """``bouts worker``: serve its Prometheus ``/metrics`` on this port (0: not served). The API
    serves ``GET /metrics`` on its own port."""

    @property
    def database_url(self) -> str:
        return self.db_url or f"sqlite:///{(self.data_dir / 'bouts.db').resolve()}"

    @property
    def heartbeat_s(self) -> float:
        """How often a running job's worker stamps its heartbeat: four times per lease."""
        return self.lease_s / 4

    @property
    def uses_celery(self) -> bool:
        return bool(self.broker_url)

    def with_overrides(self, **values: object) -> ServiceSettings:
        """These settings with the non-empty ``values`` replaced (CLI options over the environment)."""
        return replace(self, **{k: v for k, v in values.items() if v not in (None, "")})


def settings_from_env(environ: Mapping[str, str]) -> ServiceSettings:
    """Settings from ``BOUTS_*`` variables of ``environ`` (the driver passes ``os.environ``)."""
    values: dict[str, object] = {}
    for f in fields(ServiceSettings):
        raw = environ.get(ENV_PREFIX + f.name.upper())
        if raw is None or raw == "":
            continue
        kind = type(getattr(ServiceSettings(), f.name))
        try:
            values[f.name] = kind(raw)
        except ValueError:
            raise InputError(f"'{raw}' is not a valid {kind.__name__}", field=ENV_PREFIX + f.name.upper()) from None
    return ServiceSettings(**values)  # type: ignore[arg-type]
