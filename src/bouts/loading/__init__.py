"""Loading challenges and submissions from disk, and extracting submission archives safely."""

from bouts.loading.archive import extract_archive
from bouts.loading.challenge import load_challenge, severity_for
from bouts.loading.submission import check_matches, load_submission

__all__ = ["check_matches", "extract_archive", "load_challenge", "load_submission", "severity_for"]
