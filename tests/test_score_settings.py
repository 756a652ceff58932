"""One configuration for every driver (issue 18, item 5): ``bouts.score_settings.configure`` turns
the shared settings into the ``ScoreConfig`` and the judge material, seating the LLM panel; ``bouts
check`` scores its anchors with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.errors import InputError
from bouts.judges.base import JUDGES
from bouts.score_settings import ScoreSettings, configure, parse_judges

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inventory-ledger"


def _panel(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "panel.toml"
    path.write_text(f'schema = "bouts.llm-panel/1"\ncache_dir = "{tmp_path / "llm-cache"}"\n{body}')
    return path


def test_settings_become_the_config_and_the_panel_is_seated(tmp_path: Path) -> None:
    panel = _panel(tmp_path, '[[judges]]\nprovider = "openai"\nmodel = "cfg-model"\napi_key_env = "CFG_TEST_KEY"\n'
                             'base_url = "http://127.0.0.1:9/v1"\n')  # fmt: skip
    got = configure(ScoreSettings(sandbox="none", judges=("static-tests",), llm_panel=panel,
                                  advisories=tmp_path / "osv", postgres_dsn="host=/run/pg dbname=t user=u",
                                  cache_dir=tmp_path / "c", workers=3), {"CFG_TEST_KEY": "sk-secret"})  # fmt: skip
    c = got.config
    assert (c.sandbox, c.judges, c.advisories, c.cache_dir, c.workers) == (
        "none", ("static-tests",), tmp_path / "osv", tmp_path / "c", 3)  # fmt: skip
    assert c.postgres_dsn == "host=/run/pg dbname=t user=u" and c.postgres_socket_dir == Path("/run/pg")
    assert got.panel_judges == ("llm-quality:cfg-model",) and "llm-quality:cfg-model" in JUDGES.names()
    material = got.judge_material
    assert material["llm_panel"]["judges"][0]["model"] == "cfg-model" and "cache_dir" not in material["llm_panel"]
    assert "sk-secret" not in repr(material) and material["advisories"] is None  # no readable store there
    assert configure(ScoreSettings(), {}).judge_material == {"llm_panel": None, "advisories": None}


def test_judge_lists_parse_alike_for_every_driver() -> None:
    assert parse_judges(None) is None and parse_judges("") is None
    assert parse_judges("none") == () and parse_judges(" a, b ,") == ("a", "b")


@pytest.mark.parametrize(
    ("body", "field"),
    [('[[judges]]\nprovider = "openai"\nmodel = 3\n', "judges.0.model"),
     ('[[judges]]\nprovider = "openai"\nmodel = "m"\napi_key_env = "CFG_UNSET_KEY"\n', "api_key_env"),
     ('[[judges]]\nprovider = "openai"\nmodel = "m"\nname = "quality-lint"\n', "judges.name")],
)  # fmt: skip
def test_a_wrong_panel_names_the_file_and_field(tmp_path: Path, body: str, field: str) -> None:
    panel = _panel(tmp_path, body)
    with pytest.raises(InputError) as err:
        configure(ScoreSettings(llm_panel=panel), {})
    assert err.value.file == str(panel) and err.value.field == field
    with pytest.raises(InputError) as named:  # a driver reading it from a variable: named first, one line
        configure(ScoreSettings(llm_panel=panel), {}, panel_setting="BOUTS_LLM_PANEL")
    text = named.value.describe()
    assert text.startswith("field 'BOUTS_LLM_PANEL': ") and str(panel) in text and field in text
    assert "\n" not in text


def test_a_missing_panel_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        configure(ScoreSettings(llm_panel=tmp_path / "no.toml"), {})
    assert err.value.file == str(tmp_path / "no.toml") and "cannot read" in err.value.message


def test_check_scores_its_anchors_with_the_shared_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bouts check`` anchors are scored with the advisory store, judges and PostgreSQL DSN given
    (options or the variables ``bouts score`` reads), not a bare ``ScoreConfig(sandbox=...)``.
    The engine is stopped at its boundary: what matters is the configuration it is handed."""
    import bouts.pipeline

    seen = []

    def refuse(challenge: Path, anchor: Path, *, config: object, **_: object) -> None:
        seen.append(config)
        raise InputError("stopped by the test", field="anchor")

    monkeypatch.setattr(bouts.pipeline, "score", refuse)
    monkeypatch.setenv("BOUTS_ADVISORIES", str(tmp_path / "osv.db"))
    monkeypatch.setenv("BOUTS_POSTGRES_DSN", "host=/run/pg dbname=t user=u")
    monkeypatch.setenv("BOUTS_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(app, ["check", str(EXAMPLE), "--runs", "0", "--sandbox", "none", "--judges",
                                      "static-tests,security", "--no-write-quarantine", "--json"])  # fmt: skip
    assert result.exit_code == 1 and "stopped by the test" in result.output, result.output
    assert len(seen) == 3  # low, mid, high
    for config in seen:
        assert config.advisories == tmp_path / "osv.db" and config.judges == ("static-tests", "security")
        assert config.sandbox == "none" and config.postgres_dsn == "host=/run/pg dbname=t user=u"
    other = tmp_path / "other.db"
    seen.clear()
    CliRunner().invoke(app, ["check", str(EXAMPLE), "--runs", "0", "--sandbox", "none", "--advisories", str(other),
                             "--no-write-quarantine", "--json"])  # fmt: skip
    assert seen and all(c.advisories == other and c.judges is None for c in seen)
