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
from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from bouts._controls import escape_controls
from bouts.calibration.review import OUTCOMES, current_score
from bouts.service.api import pages
from bouts.service.api.deps import Caller, Ctx, Operator, ServiceContext, limit_request
from bouts.service.api.params import ChallengeFilter, ChallengeId, SubmissionId, Version
from bouts.service.api.routes_admin import apply_review_action
from bouts.service.api.schemas import ReviewActionIn
from bouts.service.errors import ServiceInputError
from bouts.service.launch import launch_gate
from bouts.service.limits import NAME_PATTERN
from bouts.service.standings import standings
from bouts.service.storage.records import Principal
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
def leaderboard_page(
    request: Request, challenge: ChallengeId, ctx: Ctx, who: Caller,
    recorded: Annotated[bool, Query(description="Only runs whose trajectory the engine recorded.")] = False,
) -> HTMLResponse:  # fmt: skip
    """The leaderboard; ``?recorded=true``: only runs the engine recorded (docs/agents.md#provenance),
    each marked with the harness and model that ran it."""
    info = ctx.repo.catalog.challenge(challenge)
    if info is None:
        raise HTTPException(404, "no such challenge")
    rows = standings(ctx.repo.submissions.attempts(challenge), recorded_only=recorded)
    items = ctx.repo.reviews.list(challenge=challenge)
    runs = {s.submission_id: pages.run_of(ctx.repo.submissions.get(s.submission_id)) for s in rows if s.recorded}
    context = {"challenge": info, "gate": launch_gate(info), "rows": pages.leaderboard_rows(rows, items),
               "shapes": pages.SHAPES, "recorded": recorded, "runs": runs}  # fmt: skip
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
    run = pages.run_of(ctx.repo.submissions.get(submission_id), shown)
    context = {"stored": stored, "view": view, "card": view.card, "versions": versions,
               "operator": who.role == "operator", "run": run}  # fmt: skip
    return templates.TemplateResponse(request, "scorecard.html", context)


ReviewStatus = Literal["open", "decided", "all"]


@router.get("/reviews", response_class=HTMLResponse)
def reviews_page(
    request: Request, ctx: Ctx, who: Operator, challenge: ChallengeFilter = None,
    status: Annotated[ReviewStatus, Query()] = "open",
) -> HTMLResponse:  # fmt: skip
    """The review queue for operators (the page of ``GET /api/v1/reviews``): each item, its
    escalation level and its whole history of decisions, who took them and why, a link to its
    scorecard, and forms to decide or escalate it. A browser without a key header gets a 401 page
    with a form for the operator key, which posts to ``POST /reviews``."""
    return _reviews(request, ctx, challenge=challenge, status=status, key=None)


@router.post("/reviews", response_class=HTMLResponse)
def reviews_page_with_key(
    request: Request, ctx: Ctx, key: Annotated[str, Form(max_length=400)] = "",
    status: Annotated[ReviewStatus, Form()] = "open",
) -> HTMLResponse:  # fmt: skip
    """The review queue for an operator key typed into the page (never in a URL, never a cookie)."""
    _form_operator(request, ctx, key)
    return _reviews(request, ctx, challenge=None, status=status, key=key)


@router.post("/reviews/decisions", response_class=HTMLResponse)
def review_decision_form(
    request: Request, ctx: Ctx,
    item_id: Annotated[str, Form(min_length=1, max_length=400)],
    action: Annotated[Literal["decide", "escalate"], Form()],
    reason: Annotated[str, Form(max_length=10_000)],
    expected_version: Annotated[int, Form(ge=1)],
    score: Annotated[str, Form(max_length=20)] = "",
    outcome: Annotated[str, Form(max_length=40)] = "",
    status: Annotated[ReviewStatus, Form()] = "open",
    key: Annotated[str, Form(max_length=400)] = "",
) -> HTMLResponse:  # fmt: skip
    """A decision or an escalation from the review page's form: the same transition, checks and
    record (who, when, why) as ``POST /api/v1/reviews/decisions``.

    CSRF: the operator's key travels in the form itself and nothing else authenticates it (no
    cookie, no session, no header a browser adds by itself), so a page of another site cannot make
    a browser send a valid decision; a request whose ``Origin`` is another site is refused too."""
    who = _form_operator(request, ctx, key)
    try:
        value = float(score) if score.strip() else None
        body = ReviewActionIn(item_id=item_id, action=action, reason=reason, score=value,
                              outcome=outcome.strip() or None, expected_version=expected_version)  # fmt: skip
    except ValueError as exc:  # pydantic's ValidationError is a ValueError: name the field
        field = next((".".join(map(str, e["loc"])) for e in getattr(exc, "errors", list)()), "score")
        raise ServiceInputError(f"{field}: {_first_line(exc)}", field=field) from None
    item = apply_review_action(ctx, who, body)
    done = f"{'decided' if action == 'decide' else 'escalated'} {item.id}: level {item.level} ({item.level_name})"
    return _reviews(request, ctx, challenge=None, status=status, key=key, notice=done)


def _first_line(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(str(e.get("msg", "invalid")) for e in errors()) or "invalid"
    return str(exc).splitlines()[0] if str(exc) else "invalid"


def _form_operator(request: Request, ctx: ServiceContext, key: str) -> Principal:
    """The operator whose key a page's form carries; 403 for a form posted from another origin,
    401 for a wrong key, 403 for another role; rate-limited like a key header."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        raise HTTPException(403, "a form of another site may not act here")
    who = ctx.repo.catalog.authenticate(key.strip()) if key.strip() else None
    if who is None:
        raise HTTPException(401, "invalid or revoked API key")
    limit_request(ctx.requests, who, request)
    if who.role != "operator":
        raise HTTPException(403, f"role '{who.role}' may not do this; needs operator")
    return who


def _reviews(request: Request, ctx: ServiceContext, *, challenge: str | None, status: str, key: str | None,
             notice: str | None = None) -> HTMLResponse:  # fmt: skip
    wanted = None if status == "all" else status
    items = ctx.repo.reviews.list(challenge=challenge, status=wanted)  # type: ignore[arg-type]
    context = {"items": items, "status": status, "current": {i.id: current_score(i) for i in items},
               "links": {i.id: _submission_of(ctx, i) for i in items}, "key": key, "notice": notice,
               "outcomes": OUTCOMES}  # fmt: skip
    return templates.TemplateResponse(request, "reviews.html", context)


def _submission_of(ctx: ServiceContext, item: object) -> str | None:
    """The submission a review item is about (its challenge, agent and iteration)."""
    agent, challenge, iteration = (getattr(item, k, None) for k in ("agent", "challenge", "iteration"))
    for sub in ctx.repo.submissions.list(agent=agent, challenge=challenge, limit=500):  # type: ignore[arg-type]
        if sub.iteration == iteration:
            return sub.id
    return None


def error_page(request: Request, status: int, detail: str, request_id: str | None,
               headers: dict[str, str] | None = None) -> HTMLResponse:  # fmt: skip
    """An error as a page, for a browser (``wants_html``); API clients get the JSON body."""
    key_form = status in (401, 403) and request.url.path == "/reviews"
    context = {"status": status, "title": ERROR_TITLES.get(status, "Error"), "detail": detail,
               "request_id": request_id, "key_form": key_form}  # fmt: skip
    return templates.TemplateResponse(request, "error.html", context, status_code=status, headers=headers)


ERROR_TITLES = {400: "Bad request", 401: "An API key is needed", 403: "Not allowed", 404: "Not found",
                405: "Method not allowed", 409: "Conflict", 413: "Too large", 422: "Invalid request",
                429: "Too many requests", 500: "Server error", 503: "Unavailable"}  # fmt: skip


def wants_html(request: Request) -> bool:
    """A browser asking for a page (``Accept`` names HTML), not the JSON API or the scraper."""
    path = request.url.path
    if path.startswith(("/api/", "/metrics", "/openapi.json", "/static/")):
        return False
    return "text/html" in request.headers.get("accept", "")


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
