"""Judges of the written deliverables (root-cause analyses, ADRs, docs).

``deliverables-offline`` (``offline``) scores each document the challenge asks for without any model:
expected facts, structure, sections, concrete references. See docs/quality-judges.md.
"""

from bouts.judges.deliverables.offline import OfflineDeliverablesJudge

__all__ = ["OfflineDeliverablesJudge"]
