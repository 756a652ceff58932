"""Server-rendered pages (Jinja2, ``templates/``). A skeleton for the web UI: add a page by adding a
route here that calls the same repository/standings functions as the JSON API and a template that
extends ``base.html``. No scripts are inlined (the CSP allows only same-origin ones)."""

from __future__ import annotations

from pathlib import Path as FsPath
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from bouts.service.api.deps import Ctx
from bouts.service.standings import standings

HERE = FsPath(__file__).parent
TEMPLATES_DIR = HERE / "templates"
STATIC_DIR = HERE / "static"
templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def index(request: Request, ctx: Ctx) -> HTMLResponse:
    return templates.TemplateResponse(request, "index.html", {"challenges": ctx.repo.catalog.challenges()})


@router.get("/challenges/{challenge}", response_class=HTMLResponse)
def leaderboard_page(request: Request, challenge: Annotated[str, Path(max_length=80)], ctx: Ctx) -> HTMLResponse:
    info = ctx.repo.catalog.challenge(challenge)
    if info is None:
        raise HTTPException(404, "no such challenge")
    rows = standings(ctx.repo.submissions.attempts(challenge))
    return templates.TemplateResponse(request, "leaderboard.html", {"challenge": info, "standings": rows})
