"""The pages in a real browser: uvicorn on a free loopback port in a thread, Debian's headless
Chromium driven by Playwright (never a downloaded browser). Leaderboard → scorecard → calibration by
clicking links, under the service's real CSP: the stylesheet must apply, no CSP violation may be
reported, and a ``<script>`` agent name must stay text. Screenshots go to ``tmp_path``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from service_helpers import CHALLENGE, live_server
from service_web_helpers import SCRIPT, card, seed

from bouts.service.api import create_app
from bouts.service.challenges import register_challenge
from bouts.service.config import ServiceSettings

CHROMIUM = os.environ.get("BOUTS_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
TIMEOUT_MS = 15_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM} (scripts/setup installs it)"),
]


def test_leaderboard_scorecard_calibration_in_chromium(settings: ServiceSettings, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
    app = create_app(settings)
    repo = app.state.ctx.repo
    info, _ = register_challenge(repo, settings.data_dir, CHALLENGE, by="test")
    ids = {f"alpha{i}": seed(repo, card("alpha", i, f, process=50.0 + 10 * i), elapsed_s=60.0 * i)
           for i, f in enumerate([60, 72, 78, 85], 1)}  # fmt: skip
    seed(repo, card("beta", 1, 70, objective=60.0, integrity=95.0, process=65.0), elapsed_s=30.0)
    seed(repo, card(SCRIPT, 1, 40, objective=95.0, integrity=10.0, process=30.0, message=SCRIPT), elapsed_s=10.0)
    seed(repo, card("anchor-mid", 1, 81, objective=80.0, process=90.0, challenge_hash=info.content_hash))

    problems: list[str] = []
    with live_server(app) as base, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True, timeout=TIMEOUT_MS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
            page.on("request", lambda r: None if r.url.startswith(base) else problems.append(f"off-origin: {r.url}"))
            page.on("response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None)

            # the leaderboard
            page.goto(f"{base}/challenges/inventory-ledger")
            row = page.locator("tr", has_text="alpha")
            sync_api.expect(row).to_contain_text("[60 → 72 → 78 → 85]")
            sync_api.expect(row).to_contain_text("monotonic")
            sync_api.expect(page.locator("td.agent", has_text=SCRIPT)).to_be_visible()  # text, not markup
            assert page.locator("svg.spark").count() == 4
            # the stylesheet applies under the CSP (same-origin, no inline style)
            assert page.eval_on_selector("svg.spark polyline", "e => getComputedStyle(e).fill") == "none"
            page.screenshot(path=str(tmp_path / "leaderboard.png"), full_page=True)

            # → alpha's scorecard, by its link
            row.get_by_role("link", name="#4").click()
            page.wait_for_url(f"{base}/submissions/{ids['alpha4']}")
            sync_api.expect(page.locator("#final")).to_have_text("85")
            assert page.eval_on_selector("#final", "e => getComputedStyle(e).fontSize") == "48px"
            sync_api.expect(page.locator("#evidence")).to_contain_text("trajectory event 3")
            sync_api.expect(page.locator("#evidence")).to_contain_text("ledger/money.py:8")
            sync_api.expect(page.locator("#math")).to_contain_text("static_test_score = (36/40) × 100 = 90")
            sync_api.expect(page.locator("#generated")).to_contain_text("unvalidated_input")
            page.screenshot(path=str(tmp_path / "scorecard.png"), full_page=True)

            # → back to the challenge, then its calibration page
            page.locator('header a[href="/challenges/inventory-ledger"]').click()
            page.get_by_role("link", name="calibration", exact=True).click()
            page.wait_for_url(f"{base}/challenges/inventory-ledger/calibration")
            assert page.locator("svg.histogram rect.bar").count() == 10
            assert page.locator("svg.scatter circle.dot").count() == 6
            sync_api.expect(page.locator("#scatter")).to_contain_text("Pearson r = ")
            sync_api.expect(page.locator("#anchor-mid")).to_contain_text("final 81")
            sync_api.expect(page.locator("#anchor-low")).to_contain_text("expected only")
            page.get_by_role("link", name="integrity vs process").click()
            sync_api.expect(page.locator("#scatter")).to_contain_text("integrity (across) vs process (up)")
            page.screenshot(path=str(tmp_path / "calibration.png"), full_page=True)
        finally:
            browser.close()

    for name in ("leaderboard", "scorecard", "calibration"):
        shot = tmp_path / f"{name}.png"
        assert shot.is_file() and shot.stat().st_size > 5_000, name
    assert not problems, problems  # no CSP violation, script error, dialog or off-origin request
