"""Dependency environments of challenges, installed once and cached by the hash of their manifests.

SPEC §5: a challenge's dependencies are installed when the challenge is prepared, into an
environment keyed by the hash of ``package.json`` + its lock file (or ``requirements.txt``), and
mounted read-only into the sandbox: tests never reach a network. See docs/javascript.md.
"""

from bouts.prepare._deps import (
    DEFAULT_CACHE,
    PreparedEnv,
    dependency_manifests,
    environment_key,
    exact_version,
    prepare_dependencies,
    unpinned_requirements,
)

__all__ = ["DEFAULT_CACHE", "PreparedEnv", "dependency_manifests", "environment_key", "exact_version",
           "prepare_dependencies", "unpinned_requirements"]
