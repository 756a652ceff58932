"""Loading challenges and submissions from disk, and extracting submission archives safely."""

from bouts.loading._common import SKIP_DIRS, read_toml, toml_loads, validate
from bouts.loading.archive import extract_archive
from bouts.loading.challenge import load_challenge, severity_for
from bouts.loading.submission import check_matches, load_submission

__all__ = [
    "SKIP_DIRS",
    "check_matches",
    "extract_archive",
    "load_challenge",
    "load_submission",
    "read_toml",
    "severity_for",
    "toml_loads",
    "validate",
]
