"""mini-swe-agent as a Bouts harness: its agent loop and model client, the engine's tool layer.

mini-swe-agent (``mini-swe-agent`` from the registry, pinned in the ``agents`` extra) asks the model
for one shell command per step and runs it in an ``Environment``. Here that environment is
:class:`BoutsEnvironment`: every command runs in the agent's sandbox through
:class:`~bouts.agents._session.AgentSandbox`, which records it. The model client (litellm, in the
engine's process) talks only to the engine's model proxy. Its own ``.traj.json`` is kept next to the
run for the user; the scorecard reads the engine's record.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

from bouts.agents._harness import HarnessModel, RunSettings
from bouts.agents._session import AgentSandbox
from bouts.errors import InputError


def _environment_class() -> type:
    from minisweagent.environments.local import LocalEnvironment

    class BoutsEnvironment(LocalEnvironment):
        """mini-swe-agent's environment protocol over the engine's sandbox (no host shell)."""

        def __init__(self, box: AgentSandbox, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.box = box

        def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
            from minisweagent.exceptions import TimeExceeded

            command = str(action.get("command", ""))
            try:
                result = self.box.exec(["bash", "-c", command], cwd=cwd or None, env=dict(self.config.env),
                                       timeout_s=timeout or self.config.timeout, merge_stderr=True)  # fmt: skip
            except TimeoutError:  # the run's budget is spent: end the run as mini-swe-agent ends one
                raise TimeExceeded({"role": "exit", "content": "TimeExceeded",
                                    "extra": {"exit_status": "TimeExceeded", "submission": ""}}) from None  # fmt: skip
            output = {"output": result.stdout, "returncode": result.exit_code, "exception_info": ""}
            if result.timed_out:
                output["exception_info"] = f"The command timed out after {timeout or self.config.timeout}s"
            self._check_finished(output)
            return output

        def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
            # Not the host's environment variables (LocalEnvironment's choice): the task runs in the sandbox.
            from minisweagent.utils.serialize import recursive_merge

            return recursive_merge(self.config.model_dump(), platform.uname()._asdict(), kwargs)

    return BoutsEnvironment


class MiniSweAgent:
    """mini-swe-agent's DefaultAgent with its text-based model (one fenced command per reply)."""

    name = "mini-swe-agent"

    def __init__(self) -> None:
        # Imported when the harness is built, before the sandbox starts (litellm takes seconds). Quiet
        # and offline: mini-swe-agent prints a banner on stdout (``bouts run --json`` owns it), and
        # litellm fetches its price table from the network unless told to use its own copy.
        os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        try:
            import litellm
            from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel
        except ImportError as exc:
            raise InputError(f"mini-swe-agent needs the agents extra: pip install 'bouts[agents]' ({exc})") from None
        litellm.suppress_debug_info = True  # its "Provider List" notices also go to stdout
        self._model_class = LitellmTextbasedModel

    def run(self, box: AgentSandbox, task: str, model: HarnessModel, settings: RunSettings) -> str:
        import yaml
        from minisweagent import config as mini_config
        from minisweagent.agents.default import DefaultAgent

        spec = yaml.safe_load((Path(mini_config.__file__).parent / "mini_textbased.yaml").read_text())
        agent_spec = {k: v for k, v in spec["agent"].items() if k != "mode"}
        agent_spec.update(step_limit=settings.step_limit, cost_limit=0,
                          wall_time_limit_seconds=int(settings.time_s or 0))  # fmt: skip
        if settings.record_dir is not None:
            agent_spec["output_path"] = settings.record_dir / "mini-swe-agent.traj.json"
        model_spec = dict(spec.get("model") or {})
        model_spec["model_kwargs"] = {**model_spec.get("model_kwargs", {}), "api_base": model.url,
                                      "api_key": model.api_key}  # fmt: skip
        llm = self._model_class(model_name=f"openai/{model.model}", cost_tracking="ignore_errors", **model_spec)
        env_spec = dict(spec.get("environment") or {})
        env_spec["timeout"] = int(box.command_timeout_s)
        env = _environment_class()(box, **env_spec)
        result = DefaultAgent(llm, env, **agent_spec).run(task)
        return str(result.get("exit_status", ""))
