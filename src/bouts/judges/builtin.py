"""Import the built-in judges so that they register in ``JUDGES`` (like a plugin would)."""

import bouts.judges.integrity  # noqa: F401, E402  (integrity-static)
import bouts.judges.trajectory  # noqa: F401, E402  (trajectory-process, -strategy, -recovery, -efficiency, -integrity)
