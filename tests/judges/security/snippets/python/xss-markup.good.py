# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from markupsafe import Markup, escape


def greeting(name: str):
    return Markup("<b>Hello</b> ") + escape(name)


def comment(text: str):
    return Markup(escape(text))
