"""A football league table from match results."""

from league.table import standings

__all__ = ["standings"]
