"""``GET /metrics``: the service in Prometheus' text format (``bouts.service.metrics``), for an
operator's key (Prometheus sends it as ``authorization: Bearer <key>``). Not in the OpenAPI
document: it is for the scraper, not for API clients."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from bouts.service import metrics
from bouts.service.api.deps import Ctx, Operator

router = APIRouter(include_in_schema=False)


@router.get("/metrics")
def scrape(ctx: Ctx, who: Operator) -> Response:
    return Response(metrics.render(ctx.repo), media_type=metrics.CONTENT_TYPE)
