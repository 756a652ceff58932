"""Every registered extension and every scoring setting is documented (STYLE §10)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import bouts.judges.builtin  # noqa: F401  (registers the built-in judges)
from bouts.judges.base import JUDGES
from bouts.judges.llm import LLM_PROVIDERS
from bouts.pipeline import ScoreConfig
from bouts.sandbox import sandboxes
from bouts.trajectory import adapters

DOCS = Path(__file__).resolve().parents[1] / "docs"


def doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("registry", "page"),
    [(JUDGES, "judges.md"), (sandboxes, "sandbox.md"), (adapters, "trajectories.md"), (LLM_PROVIDERS, "llm-judges.md")],
    ids=["judges", "sandboxes", "trajectory-adapters", "llm-providers"],
)
def test_every_registered_extension_is_named_in_its_docs_page(registry: object, page: str) -> None:
    text = doc(page)
    missing = [name for name in registry.names() if f"`{name}`" not in text]  # type: ignore[attr-defined]
    assert not missing, f"docs/{page} does not describe {missing}"


def test_every_score_setting_is_documented() -> None:
    text = doc("configuration.md")
    missing = [f.name for f in dataclasses.fields(ScoreConfig) if f"`{f.name}`" not in text]
    assert not missing, f"docs/configuration.md does not describe ScoreConfig.{missing}"
