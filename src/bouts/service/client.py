"""Talking to a running service from the command line: ``HttpReviewStore`` is the calibration
workflow's ``ReviewStore`` (``bouts.calibration.store``) over the service's review queue, so
``bouts review list|show|escalate|decide|appeal --url URL`` works on the queue the service keeps
(needs an operator key: ``--key`` or ``BOUTS_API_KEY``).

A transition is sent as what it is (``POST /api/v1/reviews/decisions``: the action, the reason,
the score, the version it was decided on); the service records who decided from the key, so the
CLI's ``--by`` is not sent. Errors become the engine's: a 409 is ``ReviewConflictError`` (read the
item again), another refusal a ``ReviewError`` naming the field, an unreachable service or a 5xx an
``InfrastructureError``.
"""

from __future__ import annotations

from typing import Any

from bouts.calibration.review import ReviewError, ReviewItem, Status
from bouts.calibration.store import ReviewConflictError
from bouts.errors import InfrastructureError

ACTIONS = {"escalated": "escalate", "decided": "decide", "appealed": "appeal"}
"""History event kind → the service's action."""


class HttpReviewStore:
    """The review queue of the service at ``url``, read and decided with an operator ``key``."""

    def __init__(self, url: str, key: str, *, timeout: float = 30.0) -> None:
        import httpx

        self._client = httpx.Client(base_url=url.rstrip("/"), headers={"X-API-Key": key} if key else {},
                                    timeout=timeout)  # fmt: skip

    def get(self, item_id: str) -> ReviewItem | None:
        found = self._call("GET", "/api/v1/reviews", params={"id": item_id})
        return ReviewItem.model_validate(found[0]["item"]) if found else None

    def list(self, *, challenge: str | None = None, status: Status | None = None) -> list[ReviewItem]:
        rows = []
        for state in (status,) if status else ("open", "decided"):  # the route lists one status at a time
            rows += self._call("GET", "/api/v1/reviews", params={"challenge": challenge, "status": state})
        return [ReviewItem.model_validate(row["item"]) for row in rows]

    def put(self, item: ReviewItem, *, expected_version: int | None) -> None:
        """Send the transition that made ``item`` from the stored one (its last history event)."""
        event = item.history[-1]
        action = ACTIONS.get(event.kind)
        if action is None or expected_version is None:
            raise ReviewError(f"the service records transitions only, not a '{event.kind}' item", field=item.id)
        body: dict[str, Any] = {"item_id": item.id, "action": action, "reason": event.reason,
                                "expected_version": expected_version}  # fmt: skip
        if action == "decide":
            body["score"] = event.after
            if event.outcome is not None:
                body["outcome"] = event.outcome
        self._call("POST", "/api/v1/reviews/decisions", json=body)

    def close(self) -> None:
        self._client.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        if "params" in kwargs:
            kwargs["params"] = {k: v for k, v in kwargs["params"].items() if v is not None}
        try:
            r = self._client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise InfrastructureError(f"the service at {self._client.base_url} did not answer: {exc}") from None
        if r.is_success:
            return r.json()
        try:
            body = r.json()
        except ValueError:
            body = {}
        detail = str(body.get("detail", r.text[:300])) if isinstance(body, dict) else r.text[:300]
        field = body.get("field") if isinstance(body, dict) else None
        if r.status_code == 409:
            raise ReviewConflictError(detail, field=field or "expected_version")
        if r.status_code >= 500:
            raise InfrastructureError(f"the service answered {r.status_code}: {detail}")
        raise ReviewError(f"the service answered {r.status_code}: {detail}", field=field or path)
