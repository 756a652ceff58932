"""SPEC §6 on the leaderboard: a provisional scorecard (a component the platform failed to measure)
ranks after every complete one, whatever its score, and is marked, until a re-score completes it.
Before: provisional scorecards were ranked with complete ones, unmarked."""

from __future__ import annotations

import html
import re

from service_helpers import MakeClient
from service_web_helpers import card, seed

from bouts.service.standings import standings
from bouts.service.storage import Repository

BOARD = "/challenges/inventory-ledger"


def test_a_provisional_scorecard_ranks_last_and_marked_until_a_re_score_completes_it(make_client: MakeClient) -> None:
    client = make_client()
    repo: Repository = client.app.state.ctx.repo  # type: ignore[attr-defined]
    seed(repo, card("complete-a", 1, 70, provisional=False), elapsed_s=10.0)
    seed(repo, card("complete-b", 1, 60, provisional=False), elapsed_s=10.0)
    sid = seed(repo, card("partial", 1, 95, provisional=True), elapsed_s=1.0)

    rows = standings(repo.submissions.attempts("inventory-ledger"))
    assert [(s.rank, s.agent, s.provisional) for s in rows] == [
        (1, "complete-a", False), (2, "complete-b", False), (3, "partial", True)]  # fmt: skip
    api = client.get("/api/v1/challenges/inventory-ledger/leaderboard").json()
    assert [(s["agent"], s["provisional"]) for s in api["standings"]][-1] == ("partial", True)
    page = client.get(BOARD).text
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    cells = [html.unescape(re.sub(r"<[^>]+>", " ", r)) for r in body.split("</tr>") if "<td" in r]
    assert "partial" in cells[-1] and "provisional" in cells[-1]
    assert "provisional" not in cells[0]

    repo.submissions.rescore(sid, card("partial", 1, 95, provisional=False), reason="the LLM judge is back", by="ops")
    rows = standings(repo.submissions.attempts("inventory-ledger"))
    assert [(s.agent, s.provisional) for s in rows][0] == ("partial", False)
