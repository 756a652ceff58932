"""The server-rendered pages (TestClient, no browser): leaderboard, scorecard, calibration. Scorecards
are seeded through the repository; what each page must show is asserted on the HTML."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, MakeClient
from service_web_helpers import HIDDEN_DETAIL, SCRIPT, card, decide_review, seed

from bouts.calibration.spec import read_expected
from bouts.service.api import pages, plots, web
from bouts.service.api.middleware import SECURITY_HEADERS
from bouts.service.storage import Repository

BOARD = "/challenges/inventory-ledger"


def _repo(client: TestClient) -> Repository:
    return client.app.state.ctx.repo  # type: ignore[attr-defined,no-any-return]


@pytest.fixture
def seeded(make_client: MakeClient) -> tuple[TestClient, dict[str, str]]:
    client = make_client()
    repo = _repo(client)
    ids = {}
    for i, final in enumerate([60, 72, 78, 85], start=1):  # monotonic, 4 iterations
        ids[f"alpha{i}"] = seed(repo, card("alpha", i, final), elapsed_s=100.0 * i)
    ids["beta"] = seed(repo, card("beta", 1, 85), elapsed_s=50.0)  # same final, fewer iterations: above alpha
    ids["gamma1"] = seed(repo, card("gamma", 1, 80), elapsed_s=10.0)
    ids["gamma2"] = seed(repo, card("gamma", 2, 70, message=SCRIPT), elapsed_s=20.0)  # regression
    divergent = card(SCRIPT, 1, 90, objective=95.0, integrity=20.0, diverge=True)
    ids["evil"] = seed(repo, divergent, elapsed_s=5.0)
    decide_review(repo, divergent, 30.0, reason="hard-coded outputs confirmed")
    return client, ids


def _rows(page: str) -> list[str]:
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [html.unescape(re.sub(r"<[^>]+>", " ", r)) for r in body.split("</tr>") if "<td" in r]


def test_leaderboard_order_trajectories_shapes_and_review(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    r = client.get(BOARD)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    rows = _rows(r.text)
    agents = [row.split()[1] for row in rows]
    # 85 in 1 iteration beats 85 in 4; gamma stands by its latest attempt (70); the reviewed 30 is last.
    assert agents == ["beta", "alpha", "gamma", SCRIPT]
    alpha = next(row for row in rows if " alpha " in row)
    assert "[60 → 72 → 78 → 85]" in alpha and "monotonic" in alpha
    gamma = next(row for row in rows if " gamma " in row)
    assert "[80 → 70]" in gamma and "regression" in gamma
    assert "one-shot" in next(row for row in rows if " beta " in row)
    evil = rows[-1]
    assert "reviewed" in evil and "scorecard 90" in evil and " 30 " in evil
    assert f'href="/submissions/{ids["alpha4"]}"' in r.text and f'href="/submissions/{ids["beta"]}"' in r.text
    assert r.text.count('<svg class="spark"') == 4
    assert "<script>" not in r.text and "&lt;script&gt;" in r.text


def test_scorecard_page_shows_the_math_and_the_evidence(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    r = client.get(f"/submissions/{ids['alpha4']}")
    assert r.status_code == 200
    page = r.text
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert re.search(r'id="final">85<', page) and "Strong" in text and "provisional" in text
    # components: score, weight, applied weight, points, not-scored reason
    comp_rows = _rows(page.split('id="components"', 1)[1])
    objective = next(row for row in comp_rows if row.split()[0] == "objective")
    assert objective.split()[1:5] == ["80", "0.45", "0.5", "40"]
    assert "not scored: no failure met: nothing to recover from" in text
    # the three profiles, flags section, the math line by line
    for profile in ("engine", "four-judge", "composite"):
        assert f"<td>{profile}" in page
    assert "missing" in text and "recovery" in text
    assert "<li><code>static_test_score = (36/40) × 100 = 90</code></li>" in page
    assert "composite = 85.25 → 85" in text
    # evidence: judge, rule, file:line or trajectory event, points, message
    assert "quality-lint" in text and "ruff:PLR2004" in text and "ledger/money.py:8" in text and "−20" in text
    assert "process.unread-edit" in text and "trajectory event 3" in text and "−5" in text
    assert "edit of ledger/core.py before reading it" in text
    assert "no LLM configured" in text  # a judge that did not sit says why
    # generated adversarial tests with their target
    assert "unvalidated_input" in text and "ledger/core.py:73" in text and "fuzz" in text
    assert "TypeError: unhashable type" in text
    # reproducibility
    assert "python-ast/1" in text and "1234" in text


def test_scorecard_page_redacts_hidden_tests_for_non_operators(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    url = f"/submissions/{ids['alpha1']}"
    public = client.get(url)
    assert public.status_code == 200
    # While the challenge is open the public sees the outcome under a label, not the test's name.
    assert "test_scale" not in public.text and "hidden-1" in public.text and HIDDEN_DETAIL not in public.text
    assert "what they check is not" in public.text
    operator = client.get(url, headers={"X-API-Key": OPERATOR_KEY})
    assert HIDDEN_DETAIL in operator.text and "test_scale" in operator.text
    client.patch("/api/v1/challenges/inventory-ledger", json={"active": False}, headers={"X-API-Key": OPERATOR_KEY})
    closed = client.get(url).text
    assert "test_scale" in closed and HIDDEN_DETAIL not in closed


def test_scorecard_page_with_a_review_decision_and_escaping(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    page = client.get(f"/submissions/{ids['evil']}").text
    # the final that stands is the score shown; the card's own stands beside it, and the math says why
    assert re.search(r'id="final"[^>]*>30<', page) and 'id="card-final">90<' in page and "judge_divergence" in page
    assert "final 90 → 30</code>" in page
    assert "hard-coded outputs confirmed" not in page  # the history is for operators
    assert "hard-coded outputs confirmed" in client.get(f"/submissions/{ids['evil']}",
                                                        headers={"X-API-Key": OPERATOR_KEY}).text
    assert "<script>" not in page and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    gamma = client.get(f"/submissions/{ids['gamma2']}").text  # the finding message carries the script
    assert "<script>" not in gamma and "&lt;script&gt;" in gamma


def test_scorecard_page_versions_and_missing(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    repo = _repo(client)
    repo.submissions.rescore(ids["beta"], card("beta", 1, 88), reason="judge recalibrated", by="operator")
    page = client.get(f"/submissions/{ids['beta']}").text
    assert 'id="final">88<' in page and "v1" in page and "judge recalibrated" in page
    assert 'id="final">85<' in client.get(f"/submissions/{ids['beta']}?version=1").text
    assert client.get("/submissions/" + "0" * 32).status_code == 404
    assert client.get("/submissions/not-an-id").status_code == 422
    assert client.get("/challenges/no-such-challenge").status_code == 404
    assert client.get("/challenges/no-such-challenge/calibration").status_code == 404


def test_calibration_page_plots_and_anchors(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    repo = _repo(client)
    info = repo.catalog.challenge("inventory-ledger")
    assert info is not None
    # The mid anchor measured on this version: objective within ±10 of its expected score, process 30 off.
    expected = read_expected((CHALLENGE / "anchors" / "mid" / "expected.toml").read_text(), shown="expected.toml")
    objective, process = expected["objective"] + 1.5, expected["process"] - 30
    mid = seed(repo, card("anchor-mid", 1, 81, objective=objective, integrity=100.0, process=process,
                          challenge_hash=info.content_hash))  # fmt: skip
    r = client.get(f"{BOARD}/calibration")
    assert r.status_code == 200
    page = r.text
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert "8 attempts" in text and "1 anchor" in text  # the anchor run is not an attempt
    assert page.count('class="bar"') == 10 and "histogram of final scores, 8 attempts" in page
    # objective vs integrity by default, with Pearson r from bouts.calibration.stats
    assert "<b>objective</b> (across) vs <b>integrity</b> (up)" in page
    assert re.search(r"Pearson r = -?\d", text)
    assert page.count('class="dot"') == 8 and f'href="/submissions/{ids["alpha1"]}"' in page
    # anchors: every level's expected; mid measured (link, within / not within), low and high expected only
    for level in ("low", "mid", "high"):
        assert f'id="anchor-{level}"' in page
    anchor_mid = html.unescape(re.sub(r"<[^>]+>", " ", page.split('id="anchor-mid"', 1)[1].split("</section>")[0]))
    assert f"/submissions/{mid}" in page and "final 81" in anchor_mid
    rows = {row.split()[0]: row.split()[1:5] for row in _rows(page.split('id="anchor-mid"', 1)[1])}
    assert rows["objective"] == [pages.num(expected["objective"], 4), pages.num(objective, 4), "+1.50", "yes"]
    assert rows["process"] == [pages.num(expected["process"], 4), pages.num(process, 4), "-30.00", "no"]
    assert set(rows) == set(expected)  # every expected score is listed
    assert "expected only: not measured yet" in page.split('id="anchor-low"', 1)[1].split("</section>")[0]
    assert "<script>" not in page


def test_calibration_page_picks_a_pair_and_explains_a_missing_r(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, _ = seeded
    page = client.get(f"{BOARD}/calibration?x=process&y=strategy").text
    assert "<b>process</b> (across) vs <b>strategy</b> (up)" in page
    assert "Pearson r: —" in page  # strategy is constant in these cards
    page = client.get(f"{BOARD}/calibration?x=bogus&y=objective").text  # unknown: back to the default pair
    assert "<b>objective</b> (across) vs <b>integrity</b> (up)" in page


def test_calibration_page_without_scorecards(client: TestClient) -> None:
    r = client.get(f"{BOARD}/calibration")
    assert r.status_code == 200
    assert "0 attempts" in r.text and "nothing to plot yet" in r.text
    assert "expected only: not measured yet" in r.text  # the anchors' expected scores still show


def test_pages_carry_the_strict_csp_and_nothing_inline(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, ids = seeded
    for url in ("/", BOARD, f"/submissions/{ids['alpha4']}", f"{BOARD}/calibration"):
        r = client.get(url)
        assert r.status_code == 200, url
        assert r.headers["content-security-policy"] == SECURITY_HEADERS["content-security-policy"]
        assert "style=" not in r.text and "<style" not in r.text and "<script" not in r.text, url
        assert "http://" not in r.text and "https://" not in r.text, url  # nothing from another origin
    assert client.get("/static/style.css").status_code == 200
    index = client.get("/").text
    assert 'href="/challenges/inventory-ledger"' in index and 'href="/challenges/inventory-ledger/calibration"' in index


def test_plot_geometry() -> None:
    spark = plots.sparkline([0, 100])
    assert spark.dots[0][1] > spark.dots[1][1]  # higher scores are drawn higher
    assert plots.bins10([0, 9.9, 10, 99, 100]) == [2, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    hist = plots.histogram([0, 2, 1] + [0] * 7)
    assert [b.count for b in hist.bars][:3] == [0, 2, 1] and hist.bars[1].h > hist.bars[2].h > hist.bars[0].h == 0
    sc = plots.scatter([(0, 0, "a", None), (100, 100, "b", None)])
    assert sc.fit == sc.diagonal and sc.n == 2
    assert plots.scatter([(50, 50, "a", None)]).fit is None
    assert pages.num(82.075) == "82.08" and pages.num(0.5) == "0.5" and pages.num(None) == "—" and pages.num(3) == "3"
    assert pages.pval(0.0) == "< 0.0001" and pages.pval(0.0371) == "0.037" and pages.pval(None) == "—"
    assert pages.location({"file": "a.py", "line": 3}) == "a.py:3"
    assert pages.location({"event": 7}) == "trajectory event 7" and pages.location({}) == "—"


def test_calibration_page_reads_at_most_the_cap(
    seeded: tuple[TestClient, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _ = seeded
    monkeypatch.setattr(web, "CALIBRATION_LIMIT", 3)
    page = client.get(f"{BOARD}/calibration").text
    assert "3 attempts" in page and "Only the newest 3 scorecards were read." in page


def test_errors_are_pages_for_browsers_and_json_for_api_clients(
    seeded: tuple[TestClient, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: a bad id, a missing key and a database outage were raw JSON in a browser."""
    from sqlalchemy.exc import OperationalError

    client, _ = seeded
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    bad = client.get("/submissions/not-an-id", headers=browser)
    assert bad.status_code == 422 and bad.headers["content-type"].startswith("text/html")
    assert "Invalid request" in bad.text and bad.headers["x-request-id"] in bad.text
    locked = client.get("/reviews", headers=browser)
    assert locked.status_code == 401 and 'name="key"' in locked.text and 'action="/reviews"' in locked.text
    api = client.get("/api/v1/submissions/not-an-id/scorecard", headers=browser)  # the API stays JSON
    assert api.status_code == 422 and api.json()["request_id"] == api.headers["x-request-id"]

    def down(*args: object, **kwargs: object) -> None:
        raise OperationalError("SELECT", {}, Exception("connection refused"))

    monkeypatch.setattr(_repo(client).catalog, "challenge", down)
    page = client.get("/challenges/inventory-ledger", headers=browser)
    assert page.status_code == 503 and "the database is unavailable" in page.text and page.headers["retry-after"]
    plain = client.get("/challenges/inventory-ledger")
    assert plain.status_code == 503 and plain.json()["field"] == "database"
