"""Request dependencies: the service context, the caller (from an API key), roles, rate limits."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from bouts.service.agent_runs import AgentModel
from bouts.service.api.ratelimit import TokenBuckets
from bouts.service.config import ServiceSettings
from bouts.service.dispatch import Dispatcher
from bouts.service.jobs import JobKind
from bouts.service.storage import Repository
from bouts.service.storage.records import PUBLIC, ChallengeInfo, Principal

log = logging.getLogger(__name__)


@dataclass
class ServiceContext:
    """Everything a route needs, built once by ``create_app``."""

    settings: ServiceSettings
    repo: Repository
    dispatcher: Dispatcher
    requests: TokenBuckets
    uploads: TokenBuckets
    agent_models: dict[str, AgentModel] = field(default_factory=dict)
    """The models agents may be run with (``BOUTS_AGENT_MODELS``), read once at start."""

    def challenge_of(self, card: dict[str, object]) -> ChallengeInfo | None:
        """The challenge a stored scorecard belongs to (its visibility rules: ``bouts.service.views``)."""
        slug = card.get("challenge")
        return self.repo.catalog.challenge(slug) if isinstance(slug, str) else None

    def enqueue(self, job_id: str, kind: JobKind = "score") -> None:
        """Hand a stored ``queued`` job to the dispatcher. A failure is logged, not raised: the job
        stays queued, and the dispatcher's retries or the next start's recovery enqueue it again."""
        try:
            self.dispatcher.enqueue(job_id, kind)
        except Exception:
            log.exception("could not enqueue %s job %s", kind, job_id)


_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer bk_<id>_<secret>")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key bk_<id>_<secret>")


def context(request: Request) -> ServiceContext:
    return request.app.state.ctx  # type: ignore[no-any-return]


Ctx = Annotated[ServiceContext, Depends(context)]


def principal(
    request: Request,
    ctx: Ctx,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
    header: Annotated[str | None, Security(_header)] = None,
) -> Principal:
    """The caller: a key's principal, the public without a key; 401 for a wrong key; 429 past the
    caller's rate limit."""
    authorization = request.headers.get("authorization")
    if authorization is not None and (bearer is None or (header and header != bearer.credentials)):
        # Credentials the service cannot read, or two different keys, are refused, not ignored.
        raise HTTPException(401, "Authorization must be 'Bearer <key>', the same key as X-API-Key if both are sent",
                            headers={"WWW-Authenticate": "Bearer"})  # fmt: skip
    key = header or (bearer.credentials if bearer else None)
    who = PUBLIC
    if key:
        found = ctx.repo.catalog.authenticate(key)
        if found is None:
            raise HTTPException(401, "invalid or revoked API key", headers={"WWW-Authenticate": "Bearer"})
        who = found
    _limit(ctx.requests, who, request)
    return who


Caller = Annotated[Principal, Depends(principal)]


def require(*roles: str) -> Callable[[Principal], Principal]:
    """A dependency that admits only ``roles`` (401 for the public, 403 for another role)."""

    def check(who: Caller) -> Principal:
        if who.role in roles:
            return who
        if who.role == "public":
            raise HTTPException(401, "an API key is required", headers={"WWW-Authenticate": "Bearer"})
        raise HTTPException(403, f"role '{who.role}' may not do this; needs {' or '.join(roles)}")

    check.requires_key = True  # type: ignore[attr-defined]  # read by ``bouts.service.api.contract``
    return check


Operator = Annotated[Principal, Depends(require("operator"))]
Submitter = Annotated[Principal, Depends(require("agent", "operator"))]
Member = Annotated[Principal, Depends(require("agent", "operator"))]


def upload_limit(request: Request, who: Submitter, ctx: Ctx) -> Principal:
    """The tighter upload bucket, on top of the request bucket."""
    _limit(ctx.uploads, who, request)
    return who


def limit_request(buckets: TokenBuckets, who: Principal, request: Request) -> None:
    """Take one token of ``who``'s bucket; 429 with ``Retry-After`` past it."""
    _limit(buckets, who, request)


def _limit(buckets: TokenBuckets, who: Principal, request: Request) -> None:
    caller = who.key_id or f"addr:{request.client.host if request.client else 'unknown'}"
    wait = buckets.take(caller)
    if wait > 0:
        retry = str(max(1, int(wait + 0.999))) if wait != float("inf") else "3600"
        raise HTTPException(429, "rate limit exceeded; slow down", headers={"Retry-After": retry})
