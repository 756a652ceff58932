"""How every command prints: engine errors, and any text it did not write itself.

An error is ``error: <file>: <field>: <message>`` on stderr. Its message, like a test's detail, a
flag, a trajectory's command or an agent's name, quotes submitted or sandbox-produced bytes: such text
is printed through :func:`plain` (control characters escaped by ``bouts._controls.escape_controls``,
never read as Rich markup or emoji codes: ``[/]``, ``:x:`` and ``\\x1b[2J`` show as written), JSON
through :func:`json_safe`, and every console comes from :func:`terminal`, whose render hook escapes
whatever control character still reaches it (a backstop: escaping before layout keeps tables aligned).
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RenderResult
from rich.markup import escape
from rich.segment import Segment
from rich.text import Text

from bouts._controls import CONTROLS, escape_controls, json_safe
from bouts.errors import BoutsError

__all__ = ["json_safe", "markup_safe", "plain", "print_error", "terminal"]


def plain(text: object, style: str = "") -> Text:
    """Untrusted text as Rich prints it: controls escaped, no markup, no emoji codes."""
    return Text(escape_controls(str(text)), style=style)


def markup_safe(text: object) -> str:
    """Untrusted text to place inside a markup string: controls escaped, ``[`` escaped."""
    return escape(escape_controls(str(text)))


class _Escaped:
    def __init__(self, inner: ConsoleRenderable) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for seg in console.render(self.inner, options):
            if seg.control or not CONTROLS.search(seg.text):
                yield seg
            else:
                yield Segment(escape_controls(seg.text), seg.style)


class _EscapeControls(RenderHook):
    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Escaped(r) for r in renderables]


def terminal(*, stderr: bool = False) -> Console:
    """The console every command prints through: no control character reaches the terminal raw."""
    console = Console(stderr=stderr)
    console.push_render_hook(_EscapeControls())
    return console


def print_error(exc: BoutsError, console: Console | None = None) -> None:
    line = Text("error:", style="bold red")
    line.append(" " + escape_controls(exc.describe()))
    (console or terminal(stderr=True)).print(line, highlight=False, soft_wrap=True)
