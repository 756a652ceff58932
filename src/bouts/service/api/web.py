"""Server-rendered pages (Jinja2, ``templates/``): the challenges, each challenge's leaderboard and
calibration page, and each submission's scorecard. A route fetches through the same repository and
standings functions as the JSON API, ``pages.py`` shapes the data (pure), a template extending
``base.html`` lays it out. Autoescape is on for every template; plots are inline SVG drawn from
``plots.py`` geometry and coloured by ``static/style.css``: no script, no inline style, nothing
from another origin, so the pages work offline under the service's strict CSP."""

from __future__ import annotations

from pathlib import Path as FsPath
from typing import Annotated, Literal

import jinja2
import markupsafe
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from bouts._controls import escape_controls
from bouts.calibration.review import current_score
from bouts.service.api import pages
from bouts.service.api.deps import Caller, Ctx, Operator
from bouts.service.api.params import ChallengeFilter, ChallengeId, SubmissionId, Version
from bouts.service.launch import launch_gate
from bouts.service.limits import NAME_PATTERN
from bouts.service.standings import standings
from bouts.service.views import scorecard_view

HERE = FsPath(__file__).parent
TEMPLATES_DIR = HERE / "templates"
STATIC_DIR = HERE / "static"


def _no_controls(value: object) -> object:
    """Every ``{{ }}`` value with its control characters shown, not emitted (``bouts._controls``):
    autoescape makes text safe for HTML, not for a terminal that ``curl``s the page."""
    if isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(escape_controls(str(value)))
    return escape_controls(value) if isinstance(value, str) else value


_env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)), autoescape=True,
                          trim_blocks=True, lstrip_blocks=True, finalize=_no_controls)  # fmt: skip
_env.filters["num"] = pages.num
_env.filters["location"] = pages.location
_env.filters["pval"] = pages.pval
_env.globals["launch_gate"] = launch_gate
templates = Jinja2Templates(env=_env)
router = APIRouter(include_in_schema=False)
ComponentName = Annotated[str | None, Query(max_length=40, pattern=NAME_PATTERN)]
CALIBRATION_LIMIT = 2000
"""The calibration page reads at most this many scorecards (the newest)."""


@router.get("/", response_class=HTMLResponse)
def index(request: Request, ctx: Ctx, who: Caller) -> HTMLResponse:
    return templates.TemplateResponse(request, "index.html", {"challenges": ctx.repo.catalog.challenges()})


@router.get("/challenges/{challenge}", response_class=HTMLResponse)
def leaderboard_page(request: Request, challenge: ChallengeId, ctx: Ctx, who: Caller) -> HTMLResponse:
    info = ctx.repo.catalog.challenge(challenge)
    if info is None:
        raise HTTPException(404, "no such challenge")
    rows = standings(ctx.repo.submissions.attempts(challenge))
    items = ctx.repo.reviews.list(challenge=challenge)
    context = {"challenge": info, "gate": launch_gate(info), "rows": pages.leaderboard_rows(rows, items),
               "shapes": pages.SHAPES}  # fmt: skip
    return templates.TemplateResponse(request, "leaderboard.html", context)


@router.get("/submissions/{submission_id}", response_class=HTMLResponse)
def scorecard_page(
    request: Request, submission_id: SubmissionId, ctx: Ctx, who: Caller,
    version: Version = None,
) -> HTMLResponse:  # fmt: skip
    """A scorecard as the caller may see it (hidden tests' detail only for operators)."""
    stored = ctx.repo.submissions.scorecard(submission_id, version)
    if stored is None:
        raise HTTPException(404, "no scorecard (yet) for this submission")
    shown = scorecard_view(stored.card, who, ctx.challenge_of(stored.card))
    item_id = pages.review_item_id(shown)
    item = ctx.repo.reviews.get(item_id) if item_id else None
    view = pages.card_view(shown, item)
    versions = ctx.repo.submissions.scorecard_history(submission_id)
    context = {"stored": stored, "view": view, "card": view.card, "versions": versions,
               "operator": who.role == "operator"}  # fmt: skip
    return templates.TemplateResponse(request, "scorecard.html", context)


@router.get("/reviews", response_class=HTMLResponse)
def reviews_page(
    request: Request, ctx: Ctx, who: Operator, challenge: ChallengeFilter = None,
    status: Annotated[Literal["open", "decided", "all"], Query()] = "open",
) -> HTMLResponse:  # fmt: skip
    """The review queue for operators (the page of ``GET /api/v1/reviews``): each item, its
    escalation level and its whole history of decisions, who took them and why."""
    wanted = None if status == "all" else status
    items = ctx.repo.reviews.list(challenge=challenge, status=wanted)
    context = {"items": items, "status": status, "current": {i.id: current_score(i) for i in items}}
    return templates.TemplateResponse(request, "reviews.html", context)


@router.get("/challenges/{challenge}/calibration", response_class=HTMLResponse)
def calibration_page(
    request: Request, challenge: ChallengeId, ctx: Ctx, who: Caller, x: ComponentName = None, y: ComponentName = None
) -> HTMLResponse:
    """Score distribution, judge-vs-judge scatter with Pearson r, anchors against expected."""
    info = ctx.repo.catalog.challenge(challenge)
    if info is None:
        raise HTTPException(404, "no such challenge")
    stored = ctx.repo.submissions.current_scorecards(challenge, limit=CALIBRATION_LIMIT)
    view = pages.calibration_view(info, stored, x=x, y=y, limit=CALIBRATION_LIMIT)
    return templates.TemplateResponse(request, "calibration.html", {"challenge": info, "view": view})
