"""STYLE §10: every setting, route and CLI command of the service is documented in docs/service.md."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from bouts.service.api import create_app
from bouts.service.config import ENV_PREFIX, ServiceSettings

DOC = (Path(__file__).resolve().parents[2] / "docs" / "service.md").read_text()


def test_every_setting_is_documented() -> None:
    missing = [f.name for f in fields(ServiceSettings) if f"`{ENV_PREFIX}{f.name.upper()}`" not in DOC]
    assert not missing


def test_every_route_is_documented(tmp_path: Path) -> None:
    paths = create_app(ServiceSettings(data_dir=tmp_path)).openapi()["paths"]
    missing = [f"{m.upper()} {p}" for p, ops in paths.items() for m in ops if f"`{p}`" not in DOC]
    assert not missing


def test_every_cli_command_is_documented() -> None:
    for command in ("bouts serve", "bouts worker", "bouts leaderboard", "bouts submit", "bouts key"):
        assert command in DOC, command
