# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import logging

logging.basicConfig(level=logging.DEBUG)
log = logging.getLogger(__name__)


def login(user, password):
    log.info("login attempt %s %s", user, password)
