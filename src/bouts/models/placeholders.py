"""Values the engine itself writes where an agent can see them, and where it writes them (issue 37).

The agents bridge (``bouts.agents``) gives the agent's commands ``OPENAI_API_KEY=bouts-proxy``: the
real key stays with the engine's model proxy, and the variable only makes ordinary clients talk to
it. An agent that writes the variable back into its code or a ``.env`` file has written the engine's
placeholder, not a credential: the security judge reads this table to tell the two apart
(docs/security.md, "The engine's own placeholders"). One table, read by both, so that the judge
never recognises a value the engine does not write, nor misses one it does.
"""

from __future__ import annotations

from collections.abc import Mapping

PROXY_API_KEY = "bouts-proxy"
"""The API key every harness is given: any value works, the proxy sends the real key."""

ENGINE_PLACEHOLDERS: Mapping[str, str] = {"OPENAI_API_KEY": PROXY_API_KEY}
"""Environment variable → the placeholder value the engine sets it to in the agent's sandbox."""
