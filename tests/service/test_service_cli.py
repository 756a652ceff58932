"""The CLI drivers: ``bouts submit`` against a live server (polls until scored, prints the final
score), ``bouts leaderboard`` from the local database and from a server, ``bouts key``, and
``bouts serve`` starting a real server process that migrates its database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from service_helpers import CHALLENGE, OPERATOR_KEY, force_open, live_server, tiny_submission
from typer.testing import CliRunner

from bouts.cli.main import app as cli
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer

runner = CliRunner()


def test_submit_and_leaderboard(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1)
    app = create_app(settings, scorer=instant_scorer)
    key = app.state.ctx.repo.catalog.create_key("agent", "cli-agent")
    archive = tmp_path / "s.tar.gz"
    archive.write_bytes(tiny_submission("cli-agent", 3))
    with live_server(app) as base:
        httpx.post(f"{base}/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(base)
        result = runner.invoke(cli, ["submit", "inventory-ledger", str(archive), "--url", base, "--key", key])
        assert result.exit_code == 0, result.output
        expected = (3 * 7 + len("cli-agent")) % 101
        assert result.stdout.strip().splitlines()[-1] == str(expected)

        again = runner.invoke(cli, ["submit", "inventory-ledger", str(archive), "--url", base, "--key", key])
        assert again.exit_code == 2 and "409" in again.output  # the same iteration twice

        remote = runner.invoke(cli, ["leaderboard", "inventory-ledger", "--url", base, "--json"])
        assert json.loads(remote.stdout)[0]["final"] == expected
    local = runner.invoke(cli, ["leaderboard", "inventory-ledger", "--data-dir", str(settings.data_dir)])
    assert local.exit_code == 0 and "cli-agent" in local.stdout and f"[{expected}]" in local.stdout


def test_key_command_creates_a_working_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = runner.invoke(cli, ["key", "agent", "--agent", "k", "--data-dir", str(data)])
    assert result.exit_code == 0 and result.stdout.startswith("bk_")
    app = create_app(ServiceSettings(data_dir=data))
    assert app.state.ctx.repo.catalog.authenticate(result.stdout.strip()).agent == "k"
    assert runner.invoke(cli, ["key", "agent", "--data-dir", str(data)]).exit_code == 2  # an agent key needs --agent


def test_serve_starts_migrates_and_answers(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "BOUTS_DATA_DIR": str(tmp_path / "data"), "BOUTS_OPERATOR_KEY": OPERATOR_KEY}
    proc = subprocess.Popen([str(Path(sys.executable).parent / "bouts"), "serve", "--port", str(port),
                             "--challenge", str(CHALLENGE)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/v1/challenges", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stdout.read().decode()  # type: ignore[union-attr]
                time.sleep(0.2)
        assert r.status_code == 200 and r.json()[0]["id"] == "inventory-ledger"
        assert r.headers["x-frame-options"] == "DENY"
        assert (tmp_path / "data" / "bouts.db").is_file()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
