"""One way every command prints an engine error: ``error: <file>: <field>: <message>`` on stderr.

The message is printed as plain text, never as Rich markup or emoji codes: it quotes submitted
bytes (a log line, a file name), and ``[/]`` or ``:x:`` in them must show as written.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from bouts.errors import BoutsError


def print_error(exc: BoutsError, console: Console | None = None) -> None:
    line = Text("error:", style="bold red")
    line.append(" " + exc.describe())
    (console or Console(stderr=True)).print(line, highlight=False, soft_wrap=True)
