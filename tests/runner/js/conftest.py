"""Fixtures of the JavaScript runner's tests; they and the helpers the tests import live in
``js_helpers`` (a module of its own name: ``conftest`` is not a name a test can import reliably)."""

from js_helpers import *  # noqa: F403  (the fixtures register from here)
