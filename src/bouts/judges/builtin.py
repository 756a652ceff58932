"""Import the built-in judges so that they register in ``JUDGES`` (like a plugin would)."""

import bouts.judges.deliverables  # noqa: F401, E402  (deliverables-offline)
import bouts.judges.integrity  # noqa: F401, E402  (integrity-static)
import bouts.judges.quality  # noqa: F401, E402  (quality-lint, quality-metrics, quality-structure)
import bouts.judges.security  # noqa: F401, E402  (security-offline)
import bouts.judges.trajectory  # noqa: F401, E402  (trajectory-process, -strategy, -recovery, -efficiency, -integrity)
