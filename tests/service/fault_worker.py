"""A ``bouts worker`` process that scores with the instant fake (run by the fault-injection suite)."""

from __future__ import annotations

import os

os.environ.setdefault("REMAP_SIGTERM", "SIGQUIT")  # as bouts worker: before celery is imported

from bouts.service.config import settings_from_env  # noqa: E402
from bouts.service.fakes import instant_scorer  # noqa: E402
from bouts.service.worker.run import run_worker  # noqa: E402

if __name__ == "__main__":
    settings = settings_from_env(os.environ)
    run_worker(settings, scorer=instant_scorer)
