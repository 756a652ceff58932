"""Settings from the environment, and the token bucket (a fake clock: no sleeping)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.errors import InputError
from bouts.service.api.ratelimit import TokenBuckets
from bouts.service.config import ServiceSettings, settings_from_env


def test_settings_from_env_are_typed_and_options_win() -> None:
    s = settings_from_env({"BOUTS_DATA_DIR": "/srv/b", "BOUTS_LOCAL_WORKERS": "4", "BOUTS_RETRY_BACKOFF_S": "0.5",
                           "BOUTS_BROKER_URL": "redis://r/0", "UNRELATED": "x"})  # fmt: skip
    assert s.data_dir == Path("/srv/b") and s.local_workers == 4 and s.retry_backoff_s == 0.5 and s.uses_celery
    assert s.database_url == "sqlite:////srv/b/bouts.db"
    assert s.with_overrides(local_workers=8, db_url="", broker_url=None).local_workers == 8
    assert s.with_overrides(db_url="").database_url == "sqlite:////srv/b/bouts.db"
    assert settings_from_env({}) == ServiceSettings()


def test_a_malformed_setting_names_the_variable() -> None:
    with pytest.raises(InputError) as err:
        settings_from_env({"BOUTS_PORT": "eighty"})
    assert err.value.field == "BOUTS_PORT"


def test_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    buckets = TokenBuckets(rate_per_minute=60, burst=2, clock=lambda: now[0])
    assert [buckets.take("k") for _ in range(2)] == [0.0, 0.0]
    assert buckets.take("k") == pytest.approx(1.0)  # one token a second
    assert buckets.take("other") == 0.0  # callers do not share a bucket
    now[0] += 1.0
    assert buckets.take("k") == 0.0
    now[0] += 100.0
    assert [buckets.take("k") for _ in range(3)][2] > 0  # refills up to the burst, no further


def test_workers_score_with_the_settings_bouts_score_reads(tmp_path: Path) -> None:
    """One configuration (issue 18, item 5): the service's workers build their ``ScoreConfig`` from
    the same variables, with the same checks, as ``bouts score``."""
    from bouts.service.api import create_app
    from bouts.service.jobs import score_config

    env = {"BOUTS_DATA_DIR": str(tmp_path), "BOUTS_JUDGES": "static-tests, security", "BOUTS_SANDBOX": "none",
           "BOUTS_POSTGRES_DSN": "host=/var/run/postgresql dbname=test user=postgres",
           "BOUTS_ADVISORIES": str(tmp_path / "osv")}  # fmt: skip
    config = score_config(settings_from_env(env))
    assert config.judges == ("static-tests", "security") and config.sandbox == "none"
    assert config.postgres_dsn == env["BOUTS_POSTGRES_DSN"]
    assert config.postgres_socket_dir == Path("/var/run/postgresql")
    assert config.advisories == tmp_path / "osv"
    bad = settings_from_env({**env, "BOUTS_POSTGRES_DSN": "host=db.example dbname=test user=x"})
    with pytest.raises(InputError) as exc:
        create_app(bad)
    assert exc.value.field == "postgres" and "socket" in exc.value.message
