"""verl's agent loop on an agentgym env.

With verl installed, point its config at the adapter and give the dataset the adapter's rows::

    # agentgym_loop.yaml
    - name: agentgym
      _target_: agentgym.integrations.verl.AgentgymVerlLoop

    python -m verl.trainer.main_ppo ... actor_rollout_ref.rollout.mode=async \
        actor_rollout_ref.rollout.agent.agent_loop_config_path=agentgym_loop.yaml

and write the rows with ``agentgym.integrations.verl.verl_rows("sql")`` to parquet. Without
verl, this script runs the same loop against a scripted stand-in for verl's server manager so the
token bookkeeping can be looked at:

    python examples/verl_agent_loop.py
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import agentgym
from agentgym.integrations.tiny import tiny_tokenizer
from agentgym.integrations.verl import AgentgymLoop, verl_rows
from agentgym.rollout import env_expert_actions


class ScriptedServer:
    """Answers like verl's ``AsyncLLMServerManager.generate``, from a list of texts."""

    def __init__(self, tokenizer, texts):
        self.tokenizer, self.texts = tokenizer, list(texts)

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None):
        ids = self.tokenizer.encode(self.texts.pop(0), add_special_tokens=False)
        return SimpleNamespace(token_ids=ids, log_probs=[0.0] * len(ids))


async def main() -> None:
    """Play one SQL task through the verl loop and print what verl would receive."""
    row = verl_rows("sql")[0]
    env = agentgym.make(row["env_id"])
    env.reset(options={"task_id": row["task_id"]})
    texts = [call.to_hermes() for call in env_expert_actions(env)]
    tokenizer = tiny_tokenizer()
    loop = AgentgymLoop(ScriptedServer(tokenizer, texts), tokenizer, response_length=8192)
    result = await loop.run(env, {"temperature": 1.0}, task_id=row["task_id"])
    env.close()
    print(f"prompt tokens {len(result.prompt_ids)}, response tokens {len(result.response_ids)} "
          f"({sum(result.response_mask)} generated), turns {result.num_turns}, "
          f"reward {result.reward_score}, end {result.extra_fields['end_reason']}")


if __name__ == "__main__":
    asyncio.run(main())
