# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import random
import secrets


def make_reset_token() -> str:
    return secrets.token_urlsafe(32)


def shuffle_deck(cards):
    random.shuffle(cards)
    jitter = random.uniform(0, 1)
    return cards, jitter
