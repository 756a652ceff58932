# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import request
from markupsafe import Markup


def greeting():
    return Markup("<b>Hello %s</b>" % request.args["name"])


def comment(text: str):
    return Markup(text)
