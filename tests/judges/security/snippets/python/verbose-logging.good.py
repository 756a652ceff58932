# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import logging
import os

logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"))
log = logging.getLogger(__name__)


def login(user, password):
    log.info("login attempt %s", user)
