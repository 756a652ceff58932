"""Errors of the service. They hang under ``InputError`` of the engine's one tree
(``bouts.errors``) and become HTTP codes only in ``bouts.service.api``::

    InputError
    └── ServiceInputError          a request the service refuses (HTTP 4xx)
        ├── NotFoundError          no such challenge, submission or flag (404)
        ├── ForbiddenError         the caller's role may not do this (403)
        ├── ConflictError          a duplicate iteration, an inactive challenge (409)
        └── PayloadTooLargeError   an upload over ``max_upload_bytes`` (413)
"""

from __future__ import annotations

from bouts.errors import InputError


class ServiceInputError(InputError):
    """A request the service refuses; ``status`` is its HTTP code."""

    status = 400


class NotFoundError(ServiceInputError):
    status = 404


class ForbiddenError(ServiceInputError):
    status = 403


class ConflictError(ServiceInputError):
    status = 409


class PayloadTooLargeError(ServiceInputError):
    status = 413
