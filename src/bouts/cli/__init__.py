"""cli."""

# The front door is the Typer app, bouts.cli.main:app (the `bouts` script); the other modules are its commands.
__all__ = [
    "main",
]
