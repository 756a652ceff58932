"""The engine's tool layer: one sandbox per agent run, every action recorded on the host, the files
that changed seen by the engine, and what the sandbox stopped named."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted import CHALLENGE

from bouts.agents import AgentSandbox
from bouts.loading import load_challenge
from bouts.sandbox import get_sandbox

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def box() -> AgentSandbox:
    with AgentSandbox(load_challenge(CHALLENGE), sandbox=get_sandbox(), timeout_s=120) as opened:
        yield opened


def test_the_workspace_holds_the_starter_and_the_visible_tests(box: AgentSandbox) -> None:
    result = box.exec(["bash", "-c", "find . -type f | sort; pwd; id -u"])
    assert result.stdout.splitlines() == [
        "./ledger/__init__.py", "./ledger/core.py", "./ledger/errors.py", "./ledger/money.py",
        "./tests/visible/test_ledger_visible.py", "/home/dev/inventory-ledger", "1000",
    ]  # fmt: skip
    run = box.exec(["bash", "-c", "python -m pytest -q tests/visible"])
    assert run.exit_code == 1 and "6 failed, 6 passed" in run.stdout


def test_every_change_is_recorded_even_when_the_command_does_not_name_it(box: AgentSandbox) -> None:
    """Stops: a script that edits code behind a harmless-looking command going unrecorded."""
    before = len(box.events)
    box.exec(["bash", "-c", "python3 -"], input="open('ledger/errors.py', 'a').write('# x\\n')\n")
    box.exec(["bash", "-c", "echo notes > NOTES.md && rm ledger/__init__.py"])
    recorded = [(e.kind, e.path) for e in box.events[before:] if e.kind != "run"]
    assert recorded == [("edit", "ledger/errors.py"), ("write", "NOTES.md"), ("delete", "ledger/__init__.py")]
    runs = [e for e in box.events[before:] if e.kind == "run"]
    assert runs[0].command == "python3 - <<'BOUTS_STDIN'\nopen('ledger/errors.py', 'a').write('# x\\n')\n\nBOUTS_STDIN"


def test_file_tools_stay_in_the_workspace(box: AgentSandbox) -> None:
    """Stops: a file tool writing outside the workspace through ../ or an absolute path."""
    box.write("deliverables/ROOT_CAUSE.md", b"# Root cause\n")
    assert box.read("deliverables/ROOT_CAUSE.md") == b"# Root cause\n"
    for path in ("../../../etc/cron.d/x", "/etc/hosts"):
        with pytest.raises(PermissionError, match="outside the workspace"):
            box.write(path, b"pwned")
    with pytest.raises(FileNotFoundError):
        box.read("missing.py")
    assert [e.evidence for e in box.observed()][-2:] == [
        "write ../../../etc/cron.d/x outside the workspace (refused)",
        "write /etc/hosts outside the workspace (refused)",
    ]


def test_writes_outside_and_other_hosts_are_stopped_and_named(box: AgentSandbox) -> None:
    result = box.exec(["bash", "-c", "echo pwned > /etc/hosts; curl -sS -m 5 http://93.184.216.34/; cat /etc/hosts"])
    assert "Read-only file system" in result.stderr and "pwned" not in result.stdout  # stopped
    named = {e.evidence for e in box.observed()}
    assert "write /etc/hosts outside the workspace (refused)" in named
    assert any(e.startswith("network attempt: Failed to connect to 93.184.216.34") for e in named)


def test_export_is_the_workspace_as_the_agent_left_it(box: AgentSandbox, tmp_path: Path) -> None:
    # What the tests before this one did, done again: under ``pytest -n`` they may run in another
    # process, with a sandbox of its own.
    box.write("deliverables/ROOT_CAUSE.md", b"# Root cause\n")
    box.exec(["bash", "-c", "echo notes > NOTES.md && rm -f ledger/__init__.py"])
    out = box.export(tmp_path / "ws")
    assert (out / "deliverables" / "ROOT_CAUSE.md").read_text() == "# Root cause\n"
    assert (out / "NOTES.md").is_file() and not (out / "ledger" / "__init__.py").exists()
    assert (CHALLENGE / "starter" / "ledger" / "__init__.py").is_file()  # the challenge is untouched


def test_the_model_endpoint_is_the_only_address_the_sandbox_reaches(tmp_path: Path) -> None:
    """Through the forwarder and the proxy: the model answers, with the key the sandbox never sees;
    any other host is refused by the proxy and named."""
    from llm_fakes import FakeLLMServer, openai_reply

    from bouts.agents import ModelEndpoint, ModelProxy

    ask = ("import json, os, urllib.request\n"
           "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions', data=b'{}',\n"
           "                             headers={'content-type': 'application/json'})\n"
           "reply = json.load(urllib.request.urlopen(req))\n"
           "print(reply['choices'][0]['message']['content'], os.environ['OPENAI_API_KEY'])\n")  # fmt: skip
    with FakeLLMServer(openai_reply("hello from the model")) as server:
        endpoint = ModelEndpoint(base_url=f"{server.url}/v1", model="m", api_key="sk-real")
        with ModelProxy(endpoint, tmp_path) as proxy, AgentSandbox(
            load_challenge(CHALLENGE), sandbox=get_sandbox(), timeout_s=60, proxy_socket=proxy.socket_path
        ) as box:
            answer = box.exec(["bash", "-c", "python3 -"], input=ask)
            other = box.exec(["bash", "-c", "curl -sS -m 5 https://collector.example.net/x"])
            refused = proxy.refused()
    assert answer.stdout.split() == ["hello", "from", "the", "model", "bouts-proxy"], answer.stderr
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sk-real"]
    assert other.exit_code != 0 and refused == [
        "connect to collector.example.net:443 (refused by the model proxy: not the model endpoint)"
    ]
