"""The FastAPI app factory. ``create_app(settings)`` opens (and migrates) the database, picks the
dispatcher (Celery when a broker is configured, else the local process pool), and mounts the JSON
API under ``/api/v1``, the pages of ``web.py`` and ``/static``. OpenAPI: ``/openapi.json``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from bouts.errors import BoutsError, InfrastructureError, InputError
from bouts.service.agent_runs import AgentModel, load_agent_models
from bouts.service.api import (
    contract,
    routes_admin,
    routes_calibration,
    routes_challenges,
    routes_metrics,
    routes_rescores,
    routes_runs,
    routes_submissions,
    web,
)
from bouts.service.api.deps import ServiceContext
from bouts.service.api.middleware import ServiceMiddleware
from bouts.service.api.ratelimit import TokenBuckets
from bouts.service.config import ServiceSettings
from bouts.service.dispatch import Dispatcher, LocalPoolDispatcher
from bouts.service.errors import ServiceInputError
from bouts.service.health import RETRY_AFTER_S, unavailable
from bouts.service.intake import sweep_orphans
from bouts.service.jobs import Scorer, pipeline_scorer, score_config
from bouts.service.limits import storable
from bouts.service.publish import CeleryDispatcher
from bouts.service.recovery import Reaper
from bouts.service.storage import Repository, open_repository
from bouts.service.storage.db import DATABASE_DOWN
from bouts.version import __version__

log = logging.getLogger("bouts.service.api")
JSON_BODY_LIMIT = 1024 * 1024


def create_app(
    settings: ServiceSettings,
    *,
    scorer: Scorer = pipeline_scorer,
    repo: Repository | None = None,
    dispatcher: Dispatcher | None = None,
) -> FastAPI:
    """The service's ASGI app. ``scorer`` replaces ``score()`` in the local pool (tests, load rigs)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    score_config(settings)  # a wrong scoring setting stops the start, naming it
    agent_models = _agent_models(settings)
    repo = repo or open_repository(settings.database_url)
    if settings.operator_key:
        try:
            repo.catalog.ensure_key(settings.operator_key, "operator", label="operator (bootstrap)")
        except ValueError as exc:
            raise InputError(str(exc), field="BOUTS_OPERATOR_KEY") from None
    if dispatcher is None:
        dispatcher = (CeleryDispatcher(settings, repo) if settings.uses_celery
                      else LocalPoolDispatcher(settings, repo, scorer))  # fmt: skip
    ctx = ServiceContext(
        settings=settings, repo=repo, dispatcher=dispatcher,
        requests=TokenBuckets(settings.rate_per_minute, settings.rate_burst),
        uploads=TokenBuckets(settings.upload_rate_per_minute, max(1, settings.rate_burst // 4)),
        agent_models=agent_models,
    )  # fmt: skip

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        swept = sweep_orphans(ctx.repo, settings.data_dir, older_than_s=settings.orphan_grace_s)
        if swept:
            log.warning("removed %d files interrupted uploads left behind", len(swept))
        recovered = _recover(ctx)
        if recovered:
            log.info("enqueued %d unfinished jobs again", recovered)

        def sweep() -> None:  # leftovers of uploads interrupted while this process runs, not only before it
            swept = sweep_orphans(ctx.repo, settings.data_dir, older_than_s=settings.orphan_grace_s)
            if swept:
                log.warning("removed %d files interrupted uploads left behind", len(swept))

        reaper = Reaper(ctx.repo, ctx.dispatcher, settings.lease_s, sweep=sweep,
                        sweep_every_s=min(300.0, max(1.0, settings.orphan_grace_s / 4))).start()  # fmt: skip
        yield
        reaper.stop()
        ctx.dispatcher.close()

    app = FastAPI(
        title="Bouts scoring service", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
        description="Submit agents' work to challenges, read scorecards and leaderboards. See docs/service.md.",
    )  # fmt: skip
    app.state.ctx = ctx
    app.add_middleware(ServiceMiddleware, max_body_bytes=max(settings.max_upload_bytes, JSON_BODY_LIMIT))
    app.add_exception_handler(BoutsError, _bouts_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    for unreachable in DATABASE_DOWN:
        app.add_exception_handler(unreachable, _database_down)  # type: ignore[arg-type]
    routers = (routes_submissions.router, routes_runs.router, routes_rescores.router, routes_challenges.router,
               routes_calibration.router, routes_admin.router, web.router)  # fmt: skip
    for router in routers:
        app.include_router(router)
    app.include_router(routes_metrics.router)
    app.mount("/static", StaticFiles(directory=web.STATIC_DIR), name="static")
    app.openapi = lambda: contract.openapi_document(app, routers)  # type: ignore[method-assign]
    return app


def _agent_models(settings: ServiceSettings) -> dict[str, AgentModel]:
    """``BOUTS_AGENT_MODELS`` read and checked at start: a broken file stops the start, naming it."""
    try:
        return load_agent_models(settings.agent_models)
    except InputError as exc:
        exc.message = f"{exc.message} (the file BOUTS_AGENT_MODELS names)"
        raise


def _recover(ctx: ServiceContext) -> int:
    recover = getattr(ctx.dispatcher, "recover", None)
    if recover is None:
        return 0
    try:
        return int(recover())
    except Exception as exc:  # the database or the broker is down: the reaper retries
        log.warning("could not recover unfinished jobs at start (%s: %s)", type(exc).__name__, exc)
        return 0


def _answer(request: Request, body: dict[str, object], status: int, headers: dict[str, str] | None = None) -> Response:
    """An error answer: the JSON body for API clients, a page saying the same for a browser
    (``web.wants_html``: a page path and an ``Accept`` naming HTML)."""
    if web.wants_html(request):
        return web.error_page(request, status, str(body.get("detail", "")), _request_id(request), headers)
    return JSONResponse(body, status_code=status, headers=headers)


async def _database_down(request: Request, exc: Exception) -> Response:
    """The database did not answer: 503 naming it, as readiness does; details to the log only."""
    request_id = _request_id(request)
    log.error("database unavailable, request %s: %s: %s", request_id, type(exc).__name__, exc)
    return _answer(request, {"detail": unavailable("database"), "field": "database", "request_id": request_id},
                   503, {"Retry-After": str(RETRY_AFTER_S)})  # fmt: skip


async def _bouts_error(request: Request, exc: BoutsError) -> Response:
    """An engine error becomes an HTTP answer naming the field; an infrastructure one is a 503."""
    request_id = _request_id(request)
    if isinstance(exc, InfrastructureError):
        log.error("infrastructure error, request %s: %s", request_id, exc.describe())
        return _answer(request, {"detail": "the service's environment failed; try again", "request_id": request_id},
                       503)  # fmt: skip
    status = exc.status if isinstance(exc, ServiceInputError) else 422
    field = f"{exc.file}:{exc.field}" if exc.file and exc.field else (exc.field or exc.file)
    return _answer(request, {"detail": exc.describe(), "field": field, "request_id": request_id}, status)


async def _invalid_request(request: Request, exc: RequestValidationError) -> Response:
    """A request that fails validation: 422 with ``ErrorOut`` (one ``detail`` string naming every
    problem, ``field`` the first one's location), never the input echoed back (it may be text the
    response could not even encode)."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error.get("loc", ()))
        problems.append((where, f"{where}: {storable(error.get('msg', 'invalid'))}"))
    field = problems[0][0] if problems else None
    detail = "; ".join(text for _, text in problems) or "invalid request"
    return _answer(request, {"detail": detail, "field": field, "request_id": _request_id(request)}, 422)


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """Starlette's answer with the documented ``request_id`` in its body (401, 403, 404, 429, a
    streamed 413...), and ``Allow`` naming every method of the path on a 405."""
    if exc.status_code == 405:
        methods = contract.allowed_methods(request.app, dict(request.scope))
        exc.headers = {**(exc.headers or {}), "Allow": ", ".join(methods)}
    if exc.status_code in (204, 304):
        return await http_exception_handler(request, exc)
    body: dict[str, object] = {"detail": exc.detail, "request_id": _request_id(request)}
    if exc.status_code == 413:
        body["field"] = "archive"
    return _answer(request, body, exc.status_code, exc.headers)


def _request_id(request: Request) -> str | None:
    return request.scope.get("state", {}).get("request_id")  # type: ignore[no-any-return]
