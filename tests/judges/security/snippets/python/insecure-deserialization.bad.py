# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import pickle

import yaml


def load_session(blob: bytes):
    return pickle.loads(blob)


def load_config(text: str):
    return yaml.load(text, Loader=yaml.Loader)
