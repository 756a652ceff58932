# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import jinja2

env = jinja2.Environment(loader=jinja2.FileSystemLoader("templates"), autoescape=True)
