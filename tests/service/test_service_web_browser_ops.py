"""The operators' and agent builders' pages in headless Chromium (issue 41): the recorded-runs view
of the leaderboard and a recorded run's scorecard (harness, model, tokens, cost); the review queue's
decision flow through its forms (the operator key typed into the page, escalate 1 → 2, then decide,
the decided score standing on the scorecard with the card's own beside it); an error page; the
calibration plot's axes and legend. Screenshots go to ``tmp_path`` (the ones in docs/ are these)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import CHALLENGE, OPERATOR_KEY, live_server
from service_web_helpers import card, seed

from bouts.models.scorecard import TrajectoryProvenance
from bouts.service.api import create_app
from bouts.service.challenges import register_challenge
from bouts.service.config import ServiceSettings
from bouts.service.storage import Repository

CHROMIUM = os.environ.get("BOUTS_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
TIMEOUT_MS = 15_000
SHOTS = os.environ.get("BOUTS_TEST_SCREENSHOTS")
"""A directory to copy the screenshots to as well (how docs/img/ is refreshed)."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM} (scripts/setup installs it)"),
]


def seed_run(repo: Repository, data_dir: Path, agent: str, final: int) -> str:
    """A run the service ran and recorded: its submission row names the run (``run_spec``) and its
    directory holds ``run.json``, as ``bouts.service.agent_runs.run_recorded`` leaves them."""
    scorecard = card(agent, 1, final).model_copy(
        update={"trajectory": TrajectoryProvenance(source="recorded", recorded_by="bouts", harness="mini-swe-agent",
                                                   events=12)})  # fmt: skip
    info = repo.catalog.challenge(scorecard.challenge)
    assert info is not None
    sid = uuid.uuid4().hex
    run_dir = data_dir / "runs" / sid
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps({"exit_status": "submitted", "stopped": [], "events": 12,
                                                  "usage": {"requests": 7, "tokens_in": 15230, "tokens_out": 2210,
                                                            "cost_usd": 0.0412}}))  # fmt: skip
    spec = {"harness": "mini-swe-agent", "model_name": "small", "endpoint": {
        "base_url": "http://127.0.0.1:9/v1", "model": "qwen2.5-coder-7b", "api_key_env": None,
        "price_in": 2.0, "price_out": 4.0, "step_limit": 50}}  # fmt: skip
    repo.submissions.create(submission_id=sid, challenge_version_id=info.version_id, agent=agent, iteration=1,
                            elapsed_s=90.0, content_hash=sid, archive_path=str(run_dir), submitted_by=None,
                            run_spec=spec)  # fmt: skip
    claim = repo.submissions.claim(sid)
    assert claim is not None and repo.submissions.complete(claim, scorecard)
    return sid


@pytest.fixture
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True, timeout=TIMEOUT_MS)
        try:
            yield chromium
        finally:
            chromium.close()


def _page(browser: Any, base: str, problems: list[str], *, expect_errors: bool = False) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") and not expect_errors
            else None)  # fmt: skip
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(base) else problems.append(f"off-origin: {r.url}"))
    if not expect_errors:
        page.on("response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return page


def _shot(page: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5_000
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (Path(SHOTS) / path.name).write_bytes(path.read_bytes())


def test_recorded_runs_view_and_a_recorded_runs_scorecard(
    settings: ServiceSettings, tmp_path: Path, browser: Any
) -> None:
    from playwright.sync_api import expect

    app = create_app(settings)
    repo = app.state.ctx.repo
    register_challenge(repo, settings.data_dir, CHALLENGE, by="test")
    seed(repo, card("uploader", 1, 90), elapsed_s=30.0)
    run_id = seed_run(repo, settings.data_dir, "runner", 72)
    problems: list[str] = []
    with live_server(app) as base:
        page = _page(browser, base, problems)
        page.goto(f"{base}/challenges/inventory-ledger")
        expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
        expect(page.locator("tr", has_text="runner").locator(".tag.recorded")).to_be_visible()
        expect(page.locator("tr", has_text="uploader").locator(".tag.recorded")).to_have_count(0)
        page.get_by_role("link", name="recorded runs only").click()
        page.wait_for_url(f"{base}/challenges/inventory-ledger?recorded=true")
        rows = page.locator("table.leaderboard tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("runner")
        expect(rows.first).to_contain_text("mini-swe-agent · small (qwen2.5-coder-7b) · 17440 tokens · $0.0412")
        _shot(page, tmp_path, "leaderboard-recorded")
        rows.first.get_by_role("link", name="#1").click()
        page.wait_for_url(f"{base}/submissions/{run_id}")
        run = page.locator("#run")
        expect(run).to_contain_text("harness mini-swe-agent")
        expect(run).to_contain_text("model small (qwen2.5-coder-7b)")
        expect(run).to_contain_text("7 requests · 15230 tokens in · 2210 tokens out · cost $0.0412")
        # every weight the engine uses is in the components table, also where the component has none
        expect(page.locator("#components tr", has_text="static_tests")).to_contain_text("—")
        expect(page.locator("#components tr", has_text="objective").first).to_contain_text("0.45")
        _shot(page, tmp_path, "scorecard-recorded")
    assert not problems, problems


def test_review_decision_flow_through_the_forms(settings: ServiceSettings, tmp_path: Path, browser: Any) -> None:
    from playwright.sync_api import expect

    app = create_app(settings)
    repo = app.state.ctx.repo
    register_challenge(repo, settings.data_dir, CHALLENGE, by="test")
    sid = seed(repo, card("diverger", 1, 64, objective=95.0, integrity=20.0, diverge=True), elapsed_s=20.0)
    problems: list[str] = []
    with live_server(app) as base:
        page = _page(browser, base, problems, expect_errors=True)
        page.goto(f"{base}/challenges/inventory-ledger")
        page.get_by_role("link", name="review queue").click()  # the header links to it
        page.wait_for_url(f"{base}/reviews")
        expect(page.locator("#error")).to_contain_text("401")  # no key yet: a page asking for one
        page.get_by_label("operator key").fill(OPERATOR_KEY)
        page.get_by_role("button", name="Open the review queue").click()
        item = page.locator("tr.item", has_text="diverger")
        expect(item.locator(".level")).to_contain_text("1 (")
        assert item.get_by_role("link").first.get_attribute("href") == f"/submissions/{sid}"
        form = page.locator("form.decide").first
        form.get_by_label("reason").fill("the objective and the integrity judges disagree by 75")
        form.get_by_role("button", name="Escalate to level 2").click()
        expect(page.locator("#notice")).to_contain_text("level 2")
        expect(page.locator("tr.item", has_text="diverger").locator(".level")).to_contain_text("2 (")
        form = page.locator("form.decide").first
        form.get_by_label("reason").fill("rubric review: hard-coded outputs in ledger/core.py")
        form.get_by_label("score (decide)").fill("30")
        _shot(page, tmp_path, "reviews")
        form.get_by_role("button", name="Decide").click()
        expect(page.locator("#notice")).to_contain_text("decided")
        expect(page.locator("tr.item", has_text="diverger")).to_have_count(0)  # no longer open
        page.goto(f"{base}/submissions/{sid}")
        expect(page.locator("#final")).to_have_text("30")  # the final that stands
        expect(page.locator("#card-final")).to_have_text("64")  # the card's own, beside it
        expect(page.locator("#math")).to_contain_text("final 64 → 30")
        _shot(page, tmp_path, "scorecard-reviewed")
    stored = repo.reviews.get(repo.reviews.list(status=None)[0].id)
    assert [(e.kind, e.actor, e.level) for e in stored.history][-2:] == [
        ("escalated", "operator (bootstrap)", 2), ("decided", "operator (bootstrap)", 2)]  # fmt: skip
    assert not [p for p in problems if not p.startswith(("401", "Failed to load resource"))], problems


def test_a_form_posted_from_another_site_is_refused(settings: ServiceSettings) -> None:
    """CSRF: the key alone authenticates a form, and a form whose Origin is another site is refused."""
    app = create_app(settings)
    repo = app.state.ctx.repo
    register_challenge(repo, settings.data_dir, CHALLENGE, by="test")
    seed(repo, card("diverger", 1, 64, objective=95.0, integrity=20.0, diverge=True))
    item = repo.reviews.list(status="open")[0]
    form = {"key": OPERATOR_KEY, "item_id": item.id, "action": "escalate", "reason": "forged",
            "expected_version": str(item.version)}  # fmt: skip
    with live_server(app) as base:
        forged = httpx.post(f"{base}/reviews/decisions", data=form, headers={"Origin": "https://evil.example"})
        no_key = httpx.post(f"{base}/reviews/decisions", data={**form, "key": ""})
        ours = httpx.post(f"{base}/reviews/decisions", data=form, headers={"Origin": base})
    assert forged.status_code == 403 and no_key.status_code == 401 and ours.status_code == 200
    assert repo.reviews.get(item.id).level == 2  # only ours was recorded


def test_error_pages_for_browsers_and_json_for_api_clients(
    settings: ServiceSettings, tmp_path: Path, browser: Any
) -> None:
    from playwright.sync_api import expect

    app = create_app(settings)
    register_challenge(app.state.ctx.repo, settings.data_dir, CHALLENGE, by="test")
    problems: list[str] = []
    with live_server(app) as base:
        page = _page(browser, base, problems, expect_errors=True)
        answer = page.goto(f"{base}/submissions/{'0' * 32}")
        assert answer is not None and answer.status == 404
        assert answer.headers["content-type"].startswith("text/html")
        expect(page.locator("#error h1")).to_have_text("Not found")
        expect(page.locator("#error .detail")).to_contain_text("no scorecard")
        expect(page.locator("#request-id")).to_have_text(answer.headers["x-request-id"])
        _shot(page, tmp_path, "error-404")
        answer = page.goto(f"{base}/submissions/not-an-id")
        assert answer is not None and answer.status == 422
        expect(page.locator("#error h1")).to_have_text("Invalid request")
        api = httpx.get(f"{base}/api/v1/submissions/{'0' * 32}/scorecard", headers={"Accept": "text/html"})
        plain = httpx.get(f"{base}/submissions/{'0' * 32}")  # no Accept: an API client
    assert api.status_code == 404 and api.json()["request_id"] == api.headers["x-request-id"]
    assert plain.status_code == 404 and plain.json()["detail"]
    assert not [p for p in problems if "Failed to load resource" not in p], problems


def test_calibration_plot_axes_and_legend(settings: ServiceSettings, tmp_path: Path, browser: Any) -> None:
    from playwright.sync_api import expect

    app = create_app(settings)
    repo = app.state.ctx.repo
    register_challenge(repo, settings.data_dir, CHALLENGE, by="test")
    for i, (final, objective, integrity) in enumerate([(30, 40.0, 35.0), (34, 45.0, 30.0), (38, 50.0, 45.0),
                                                       (62, 65.0, 70.0), (81, 85.0, 80.0)], 1):  # fmt: skip
        seed(repo, card(f"agent{i}", 1, final, objective=objective, integrity=integrity, process=50.0 + i))
    problems: list[str] = []
    with live_server(app) as base:
        page = _page(browser, base, problems)
        page.goto(f"{base}/challenges/inventory-ledger/calibration")
        ticks = page.locator("svg.histogram text.tick[text-anchor='end']").all_text_contents()
        assert ticks == ["0", "1", "2", "3"], ticks  # three finals in 30–40: evenly spaced whole numbers
        expect(page.locator("svg.histogram text.label")).to_have_text(["final score", "attempts"])
        expect(page.locator("#bands")).to_contain_text("Attempts per band:")
        legend = page.locator("#scatter-legend")
        expect(legend).to_contain_text("y = x: where the two judges would agree exactly")
        expect(legend).to_contain_text("least-squares fit of integrity on objective")
        dash = page.eval_on_selector("#scatter-legend line.diagonal", "e => getComputedStyle(e).strokeDasharray")
        assert dash == page.eval_on_selector("svg.scatter line.diagonal", "e => getComputedStyle(e).strokeDasharray")
        assert page.locator("svg.scatter circle.dot").count() == 5
        _shot(page, tmp_path, "calibration")
    assert not problems, problems
