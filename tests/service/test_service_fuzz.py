"""The OpenAPI document is the contract (issue 18, item 4): schemathesis generates requests from
``/openapi.json`` for every operation and runs every one of its checks on each answer (no 5xx,
status codes, content types, headers and bodies as documented, bad input refused, good input
accepted, auth as declared), on SQLite and on PostgreSQL, as the public, an agent and an operator.
The example count is bounded (``BOUTS_FUZZ_EXAMPLES``, default 10 per operation) so it runs in CI.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from service_helpers import CHALLENGE, OPERATOR_KEY, force_open

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer

pytestmark = pytest.mark.slow_io  # every operation of the API, as three roles, 10 examples each: tens of seconds

MAX_EXAMPLES = int(os.environ.get("BOUTS_FUZZ_EXAMPLES", "10"))
ROLES = ("public", "agent", "operator")


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fuzzed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FastAPI, dict]]:
    """A started app with a challenge and one scored submission, and a key per role."""
    db_url = ""
    if request.param == "postgres":
        db_url = _pg_database(request)
    data = tmp_path_factory.mktemp(f"fuzz-{request.param}")
    app = create_app(ServiceSettings(data_dir=Path(data), db_url=db_url, operator_key=OPERATOR_KEY, local_workers=1,
                                     rate_per_minute=10**6, rate_burst=10**6, upload_rate_per_minute=10**6),
                     scorer=instant_scorer)  # fmt: skip
    with TestClient(app) as client:  # runs the lifespan: the pool starts and is closed afterwards
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        agent = app.state.ctx.repo.catalog.create_key("agent", "fuzzer")
        yield app, {"public": "", "agent": agent, "operator": OPERATOR_KEY}


def _pg_database(request: pytest.FixtureRequest) -> str:
    from service_helpers import PG_HOST, PG_PORT, answers, pg_database

    if not answers(PG_HOST, PG_PORT):
        pytest.skip(f"no PostgreSQL server answers at {PG_HOST}:{PG_PORT}")
    database = pg_database("bouts_fuzz")
    url = database.__enter__()
    request.addfinalizer(lambda: database.__exit__(None, None, None))
    return url


SEMANTIC_422 = {
    "POST /api/v1/challenges": "the path must name a directory on the server that holds a valid challenge",
    "POST /api/v1/challenges/{challenge}/checks": "at most one fresh seed per run: the limit depends on `runs`",
}
"""Operations whose schema-valid bodies may still be refused (422) for a reason the schema cannot
state; every other operation must accept every schema-valid request it is authorised for."""
PATTERN_422 = {
    "POST /api/v1/challenges/{challenge}/force-open": "schemathesis sends challenge ids outside their pattern "
    "(a newline inside: '[4\\n-^ ') as positive data for this operation; the 422 naming path.challenge is right. "
    "Its body's reason must also be two words at least, which the schema cannot state (it states the length)",
}
"""Operations for which schemathesis's positive data breaks the path parameter's own pattern (checked
by hand: ``re.search(NAME_PATTERN, '[4\\n-^ ')`` is None), so a 422 is the contract's answer."""


@pytest.fixture(scope="module")
def api_schema(fuzzed: tuple[FastAPI, dict]) -> schemathesis.BaseSchema:
    accepted = ["2xx", "401", "403", "404", "409", "422", "429"]
    config = SchemathesisConfig.from_dict({"operations": [
        {"include-name": name, "checks": {"positive_data_acceptance": {"expected-statuses": accepted}}}
        for name in (*SEMANTIC_422, *PATTERN_422)
    ]})  # fmt: skip
    return schemathesis.openapi.from_asgi("/openapi.json", fuzzed[0], config=config)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_every_answer_matches_the_contract(case: schemathesis.Case, fuzzed: tuple[FastAPI, dict]) -> None:
    """Each generated request is sent once per role (schemathesis runs every operation of the lazy
    schema inside this one test, so the role cannot be a pytest parameter)."""
    for role in ROLES:
        key = fuzzed[1][role]
        response = case.call_and_validate(headers={"X-API-Key": key} if key else {})
        assert response.headers.get("x-content-type-options") == ["nosniff"], role
