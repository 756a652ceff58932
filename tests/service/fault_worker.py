"""A ``bouts worker`` process that scores with the instant fake (run by the fault-injection suite)."""

from __future__ import annotations

import os

from bouts.service.config import settings_from_env
from bouts.service.fakes import instant_scorer
from bouts.service.worker.run import run_worker

if __name__ == "__main__":
    settings = settings_from_env(os.environ)
    run_worker(settings, scorer=instant_scorer)
