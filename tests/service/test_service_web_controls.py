"""Attack: a scorecard field carrying terminal control characters, served as a page and read with
``curl`` in a terminal. Autoescape makes it safe HTML; the template environment also shows controls."""

from __future__ import annotations

import markupsafe

from bouts.service.api.web import _env


def test_pages_never_emit_raw_control_characters() -> None:
    html = _env.from_string("<p>{{ detail }}</p><p>{{ marked }}</p><p>{{ n }}</p>").render(
        detail="x\x1b[2J<b>\x9b", marked=markupsafe.Markup("<i>y\x1b]52;c;</i>"), n=3
    )
    assert "\x1b" not in html and "\x9b" not in html
    assert "x\\x1b[2J&lt;b&gt;\\x9b" in html and "<i>y\\x1b]52;c;</i>" in html and "<p>3</p>" in html
