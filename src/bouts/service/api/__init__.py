"""The HTTP API of the service (FastAPI): ``create_app(settings)``."""

from bouts.service.api.app import create_app

__all__ = ["create_app"]
