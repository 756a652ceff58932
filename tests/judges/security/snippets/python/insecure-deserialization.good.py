# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import json

import yaml


def load_session(blob: bytes):
    return json.loads(blob)


def load_config(text: str):
    return yaml.safe_load(text)


def load_config2(text: str):
    return yaml.load(text, Loader=yaml.SafeLoader)
