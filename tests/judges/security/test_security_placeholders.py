"""Issue 37: the engine's own placeholder key is not a secret. Attack (on the engine's fairness):
``OPENAI_API_KEY=bouts-proxy``, which the agents bridge itself sets in the agent's sandbox, was scored as
a critical hard-coded credential (the security cliff caps such a run at 75); a real key beside it still
counts."""

from __future__ import annotations

import pytest

from bouts.judges.security import SecurityJudge, SecurityReport
from bouts.judges.security._placeholders import is_engine_placeholder
from bouts.models.placeholders import ENGINE_PLACEHOLDERS, PROXY_API_KEY

REAL_KEY = "sk-ant-api03-" + "Zq3" * 30 + "-AbCdEfGhAA"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> SecurityReport:
    root = tmp_path_factory.mktemp("placeholders")
    code, starter = root / "code", root / "starter"
    code.mkdir()
    starter.mkdir()
    (code / ".env").write_text("OPENAI_API_KEY=bouts-proxy\nOPENAI_BASE_URL=http://127.0.0.1:8080/v1\n")
    (code / "settings.py").write_text('import os\n\nos.environ.setdefault("OPENAI_API_KEY", "bouts-proxy")\n'
                                      'OPENAI_API_KEY = os.getenv("OPENAI_API_KEY", "bouts-proxy")\n')
    (code / "real.env").write_text(f"OPENAI_API_KEY=bouts-proxy\nANTHROPIC_API_KEY={REAL_KEY}\n")
    (code / "same_line.env").write_text(f"OPENAI_API_KEY=bouts-proxy  # {REAL_KEY}\n")
    (code / "other_name.py").write_text('PASSWORD = "bouts-proxy"\n')
    return SecurityJudge().scan(code, starter)


def _critical(report: SecurityReport, file: str) -> list[int]:
    return [f.line for f in report.findings if f.file == file and f.counted and f.severity == "critical"]


def test_the_engine_placeholder_where_the_engine_writes_it_is_no_finding(report: SecurityReport) -> None:
    assert _critical(report, ".env") == []
    assert _critical(report, "settings.py") == []


def test_a_real_key_next_to_the_placeholder_is_still_critical(report: SecurityReport) -> None:
    assert _critical(report, "real.env") == [2]
    assert _critical(report, "same_line.env") == [1]


def test_the_placeholder_value_under_another_name_is_a_credential(report: SecurityReport) -> None:
    assert _critical(report, "other_name.py") == [1]


def test_the_table_is_what_the_agents_bridge_sets() -> None:
    from bouts.agents._run import HarnessModel

    assert ENGINE_PLACEHOLDERS == {"OPENAI_API_KEY": PROXY_API_KEY}
    assert HarnessModel(url="http://127.0.0.1:1/v1", model="m").api_key == PROXY_API_KEY


@pytest.mark.parametrize("line", [
    "OPENAI_API_KEY=bouts-proxy",
    'export OPENAI_API_KEY="bouts-proxy"',
    'os.environ["OPENAI_API_KEY"] = "bouts-proxy"',
    '  "OPENAI_API_KEY": "bouts-proxy",',
    "OPENAI_API_KEY: bouts-proxy",
    "OPENAI_API_KEY = 'bouts-proxy'  # the engine's proxy key",
])
def test_lines_that_only_bind_the_placeholder(line: str) -> None:
    assert is_engine_placeholder(line)


@pytest.mark.parametrize("line", [
    f"OPENAI_API_KEY=bouts-proxy ANTHROPIC_API_KEY={REAL_KEY}",
    'api_key = "bouts-proxy"',
    "OPENAI_API_KEY=bouts-proxy-sk-abcdef",
    "OPENAI_API_KEY=bouts-proxy2",
    'OPENAI_API_KEY="bouts-proxy"; SECRET="hunter22"',
    "OPENAI_API_KEY=bouts-proxy PASSWORD=hunter",
    "OPENAI_API_KEY=sk-proj-abcdefghijklmnop",
])
def test_lines_with_anything_else_are_not_the_placeholder(line: str) -> None:
    assert not is_engine_placeholder(line)
