"""Path and query parameters shared by the routes and pages, bounded at the edge
(``bouts.service.limits``): ids match their shape, names carry no control character, integers fit
the database's columns. A value outside is a 422 naming the parameter, never a database error."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from bouts.service.limits import INT32_MAX, NAME_PATTERN

HEX32 = r"^[0-9a-f]{32}$"
SubmissionId = Annotated[str, Path(pattern=HEX32)]
JobId = Annotated[str, Path(pattern=HEX32)]
"""A check run's or a re-score's id."""
ChallengeId = Annotated[str, Path(min_length=1, max_length=80, pattern=NAME_PATTERN)]
ChallengeFilter = Annotated[str | None, Query(max_length=80, pattern=NAME_PATTERN)]
NameFilter = Annotated[str | None, Query(max_length=80, pattern=NAME_PATTERN)]
Version = Annotated[int | None, Query(ge=1, le=INT32_MAX)]
"""A scorecard version (``?version=``): the current one when absent."""
ReviewItemFilter = Annotated[str | None, Query(max_length=400, pattern=NAME_PATTERN)]
