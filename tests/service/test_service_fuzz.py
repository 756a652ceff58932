"""Schema fuzzing of the API (schemathesis, bounded examples): whatever it sends, as the public, an
agent or an operator, the service answers without a 5xx and with its security headers."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from service_helpers import CHALLENGE, OPERATOR_KEY

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer

MAX_EXAMPLES = int(os.environ.get("BOUTS_FUZZ_EXAMPLES", "10"))
_DATA = Path(tempfile.mkdtemp(prefix="bouts-fuzz-"))
APP = create_app(
    ServiceSettings(data_dir=_DATA, operator_key=OPERATOR_KEY, local_workers=1, rate_per_minute=10**6,
                    rate_burst=10**6, upload_rate_per_minute=10**6),
    scorer=instant_scorer,
)  # fmt: skip
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module")
def keys() -> Iterator[dict[str, str]]:
    with TestClient(APP) as client:  # runs the lifespan: the pool starts and is closed afterwards
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        agent = APP.state.ctx.repo.catalog.create_key("agent", "fuzzer")
        yield {"public": "", "agent": agent, "operator": OPERATOR_KEY}


@pytest.mark.parametrize("role", ["public", "agent", "operator"])
@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors(case: schemathesis.Case, role: str, keys: dict[str, str]) -> None:
    headers = {"X-API-Key": keys[role]} if keys[role] else {}
    response = case.call(headers=headers)
    assert response.status_code < 500, (case.method, case.formatted_path, response.status_code, response.text[:300])
    assert response.headers.get("x-content-type-options") == ["nosniff"]
