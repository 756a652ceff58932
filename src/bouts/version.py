"""The engine's version and where it is installed: a module of its own, imported by the modules that
stamp or fingerprint the engine (``assemble``, ``cache``, the security judge's ESLint, the drivers)
without importing the ``bouts`` package's front door (which leads to the pipeline, and back)."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

PACKAGE_DIR = Path(__file__).resolve().parent
"""The installed ``bouts`` package's folder (``src/bouts`` in a checkout)."""
