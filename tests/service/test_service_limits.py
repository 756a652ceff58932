"""Every input bounded at the edge (issue 18, item 1): values a database column cannot hold, names
that cannot be stored or sent back, oversized query parameters. Each is a 4xx naming the field,
on SQLite and on PostgreSQL, and nothing is stored; an archive and its row land together, and the
start-up sweep removes what an interrupted upload left behind."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, MakeClient, force_open, tar_gz, tiny_submission, wait_terminal

from bouts.pipeline import ScoreConfig
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer
from bouts.service.limits import INT32_MAX, storable

SUBMIT = "/api/v1/challenges/inventory-ledger/submissions"
OP = {"X-API-Key": OPERATOR_KEY}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_db(request: pytest.FixtureRequest, make_client: MakeClient) -> TestClient:
    """A started app on the embedded SQLite database, then on the local PostgreSQL server."""
    if request.param == "postgres":
        return make_client(db_url=request.getfixturevalue("pg_url"))
    return make_client()


def _post(client: TestClient, data: bytes, key: str = OPERATOR_KEY):  # type: ignore[no-untyped-def]
    return client.post(SUBMIT, headers={"X-API-Key": key}, files={"archive": ("s.tar.gz", data, "application/gzip")})


def _nothing_stored(client: TestClient) -> None:
    ctx = client.app.state.ctx  # type: ignore[attr-defined]
    assert ctx.repo.submissions.list() == []
    for sub in ("submissions", "incoming"):
        folder = ctx.settings.data_dir / sub
        assert not folder.exists() or not any(folder.iterdir()), sub
    scratch = ctx.settings.data_dir / "tmp"
    assert not scratch.exists() or not any(scratch.iterdir())


def _toml(iteration: str = "1", agent: str = '"a"', elapsed: str = "10") -> str:
    return f'agent = {agent}\nchallenge = "inventory-ledger"\niteration = {iteration}\nelapsed_s = {elapsed}\n'


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        (_toml(iteration="99999999999999999999999"), "iteration"),
        (_toml(iteration=str(INT32_MAX + 1)), "iteration"),
        (_toml(elapsed="inf"), "elapsed_s"),
        (_toml(elapsed="nan"), "elapsed_s"),
        (_toml(agent='"a\\u0000b"'), "agent"),
        (_toml(agent='"a\\u001b[31mred"'), "agent"),
    ],
    ids=["iteration-huge", "iteration-2^31", "elapsed-inf", "elapsed-nan", "agent-nul", "agent-escape"],
)
def test_unstorable_submission_toml_is_a_4xx_naming_the_field_and_stores_nothing(
    any_db: TestClient, toml: str, field: str
) -> None:
    """Attack: values past a column's range (PostgreSQL's integer is 32-bit) or text it refuses:
    the upload used to be a 500 with the archive left in submissions/ and no row."""
    r = _post(any_db, tar_gz({"submission.toml": toml, "code/ledger.py": "VALUE = 1\n"}))
    assert r.status_code == 422, r.text
    assert r.json()["field"].endswith(f"submission.toml:{field}"), r.json()
    _nothing_stored(any_db)


def test_the_largest_storable_iteration_passes_the_storage_bound(any_db: TestClient) -> None:
    """2³¹−1 fits the column: it is judged by the challenge's rules (here its iteration budget,
    a 409), not refused as unstorable."""
    r = _post(any_db, tar_gz({"submission.toml": _toml(iteration=str(INT32_MAX)), "code/ledger.py": ""}))
    assert r.status_code == 409 and "budget" in r.json()["detail"], r.text
    _nothing_stored(any_db)


def _tar_with_raw_name(raw: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        for rel, text in (("s/submission.toml", _toml()), ("s/code/ledger.py", "VALUE = 1\n")):
            info = tarfile.TarInfo(rel)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text.encode()))
        info = tarfile.TarInfo(raw.decode("utf-8", "surrogateescape"))
        info.size = 2
        tar.addfile(info, io.BytesIO(b"x\n"))
    data = buf.getvalue()
    return data


def test_a_member_name_that_is_not_utf8_is_refused_naming_it(any_db: TestClient) -> None:
    """Attack: a tar member named with bytes that are not UTF-8 (``code/\\xff\\xfe.py``). It used to
    be accepted and scored, and then its scorecard answered 500 to everyone."""
    r = _post(any_db, _tar_with_raw_name(b"s/code/\xff\xfe.py"))
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"].endswith(":archive") and "\\xff\\xfe" in body["field"], body
    assert "UTF-8" in body["detail"]
    _nothing_stored(any_db)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/submissions/" + "0" * 32 + "/scorecard?version=2147483648",
        "/api/v1/submissions/" + "0" * 32 + "/scorecard?version=99999999999999999999",
        "/submissions/" + "0" * 32 + "?version=2147483648",
        "/api/v1/challenges/a%00b/leaderboard",
        "/api/v1/challenges/a%00b",
        "/challenges/a%00b",
    ],
)
def test_out_of_range_parameters_are_422_without_a_key(any_db: TestClient, url: str) -> None:
    r = any_db.get(url)
    assert r.status_code == 422, (url, r.status_code, r.text)


@pytest.mark.parametrize("url", ["/api/v1/submissions?challenge=a%00b", "/api/v1/flags?code=%00",
                                 "/api/v1/reviews?id=x%00", "/api/v1/reviews?challenge=%01"])  # fmt: skip
def test_control_characters_in_query_filters_are_422(any_db: TestClient, url: str) -> None:
    assert any_db.get(url, headers=OP).status_code == 422, url


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/v1/keys", {"role": "agent", "agent": "a\u0000"}),
        ("/api/v1/keys", {"role": "agent", "agent": "a", "label": "\x1b]0;owned\x07"}),
        ("/api/v1/keys", {"role": "agent", "agent": "\ud800"}),
        ("/api/v1/reviews/decisions", {"item_id": "x", "action": "escalate", "reason": "nul\u0000",
                                       "expected_version": 1}),
        ("/api/v1/challenges", {"path": "/tmp/\u0000"}),
    ],
)  # fmt: skip
def test_unstorable_text_in_json_bodies_is_422(any_db: TestClient, url: str, body: dict[str, object]) -> None:
    # Sent as JSON escapes (``\\ud800``), as a hostile client would: the body itself is valid JSON.
    r = any_db.post(url, content=json.dumps(body), headers={**OP, "Content-Type": "application/json"})
    assert r.status_code == 422, r.text


def test_a_card_with_unencodable_text_is_stored_and_served(any_db: TestClient) -> None:
    """Backstop: text a scorer put in a card (a message quoting a file name) that a database or
    JSON cannot carry is made storable and sendable, for every role, on the API and the page."""
    subs = any_db.app.state.ctx.repo.submissions  # type: ignore[attr-defined]
    sid = _post(any_db, tiny_submission("a")).json()["id"]
    assert wait_terminal(any_db, sid, OPERATOR_KEY)["state"] == "scored"
    card = instant_scorer(CHALLENGE, Path(subs.get(sid).archive_path), ScoreConfig())
    card = card.model_copy(update={"math": ["read code/\udcff\udcfe.py", "nul\u0000here"]})
    assert subs.rescore(sid, card, reason="engine fix", by="test") == 2
    for headers in ({}, OP):
        r = any_db.get(f"/api/v1/submissions/{sid}/scorecard", headers=headers)
        assert r.status_code == 200, r.text
        assert r.json()["scorecard"]["math"] == ["read code/\ufffd\ufffd.py", "nulhere"]
        assert any_db.get(f"/submissions/{sid}", headers=headers).status_code == 200
    assert storable({"k\udc80": [1.0, float("inf"), "\udc80"]}) == {"k\ufffd": [1.0, None, "\ufffd"]}


def test_archive_and_row_land_together(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process fails after the archive is moved into place but before the row commits: the
    archive goes too (it used to be moved before the row was written, leaving an orphan)."""
    subs = client.app.state.ctx.repo.submissions  # type: ignore[attr-defined]
    real = subs.create

    def create_then_fail(**kwargs: object) -> object:
        place = kwargs.pop("place")

        def place_then_fail() -> None:
            place()  # type: ignore[operator]
            raise OSError("disk full at commit")

        return real(**kwargs, place=place_then_fail)

    monkeypatch.setattr(subs, "create", create_then_fail)
    assert _post(client, tiny_submission("a")).status_code == 500
    _nothing_stored(client)


def test_start_up_sweep_removes_orphans_and_keeps_stored_archives(tmp_path: Path) -> None:
    """An API killed mid-upload leaves a staged file, a scratch directory, or an archive whose row
    never committed; the next start removes them (once older than ``orphan_grace_s``, so another
    API's upload in flight is left alone) and keeps every archive a submission names."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                               orphan_grace_s=60)  # fmt: skip
    with TestClient(create_app(settings, scorer=instant_scorer)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        sid = _post(client, tiny_submission("a")).json()["id"]
        assert wait_terminal(client, sid, OPERATOR_KEY)["state"] == "scored"
    data = settings.data_dir
    kept = next((data / "submissions").iterdir())
    old = [data / "submissions" / ("f" * 32 + ".tar.gz"), data / "incoming" / ("e" * 32 + ".tar.gz")]
    (data / "tmp" / "tmpdead").mkdir(parents=True)
    old.append(data / "tmp" / "tmpdead")
    young = data / "submissions" / ("d" * 32 + ".tar.gz")
    for path in old[:2] + [young]:
        path.write_bytes(b"orphan")
    for path in old + [kept]:
        os.utime(path, (1, 1))
    with TestClient(create_app(settings, scorer=instant_scorer)) as client:
        assert [p.exists() for p in old] == [False, False, False]
        assert kept.exists() and young.exists()
        assert client.get(f"/api/v1/submissions/{sid}/scorecard").status_code == 200
