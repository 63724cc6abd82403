"""TRL's GRPOTrainer on an agentgym env through ``environment_factory`` (CPU, tiny model)."""

from __future__ import annotations

import inspect

import pytest

from agentgym import make
from agentgym.rollout import env_expert_actions

trl = pytest.importorskip("trl")

from agentgym.integrations.trl import trl_dataset, trl_environment  # noqa: E402


def test_environment_class_exposes_the_env_tools_to_trl():
    from transformers.utils import get_json_schema

    cls = trl_environment("sql")
    methods = dict(inspect.getmembers(cls, predicate=inspect.isfunction))
    assert {"reset", "get_reward", "execute_sql", "submit"} <= set(methods)
    instance = cls()
    schema = get_json_schema(instance.execute_sql)["function"]
    local = make("sql").tools.get("execute_sql")
    assert schema["name"] == "execute_sql"
    assert schema["parameters"]["required"] == ["query"]
    assert schema["parameters"]["properties"]["query"]["type"] == "string"
    assert schema["description"] == local.description


def test_environment_plays_an_episode_with_the_expert():
    cls = trl_environment("sql")
    env = cls()
    local = make("sql")
    task_id = local.unwrapped.task_set.ids()[5]
    local.reset(options={"task_id": task_id})
    text = env.reset(prompt=[], task_id=task_id)
    assert text.startswith("\n\n") and "Database:" in text
    assert env.get_reward() == 0.0
    assert "Error" in env.execute_sql(query="DELETE FROM x") or env.get_reward() == 0.0
    for call in env_expert_actions(local):
        getattr(env, call.name)(**call.arguments)
    assert env.get_reward() == 1.0 and env.done
    assert "ended" in env.submit(query="SELECT 1")


def test_an_env_that_dies_mid_episode_is_left_out_not_scored_as_the_model_failing():
    from agentgym.errors import InfrastructureError

    env = trl_environment("sql")()
    task_id = make("sql").unwrapped.task_set.ids()[5]
    env.reset(prompt=[], task_id=task_id)

    def dead(action):
        raise InfrastructureError("the database server is gone")

    env.env.step = dead
    answer = env.execute_sql(query="SELECT 1")
    assert "the database server is gone" in answer and "ended" in answer and env.done
    assert env.get_reward() is None  # TRL turns None into NaN and leaves the sample out
    assert "ended" in env.submit(query="SELECT 1")
    del env.env.step  # the env works again: a fresh episode starts clean
    env.reset(prompt=[], task_id=task_id)
    assert env.get_reward() == 0.0 and not env.aborted


def test_dataset_rows_name_tasks():
    ds = trl_dataset("sql", limit=3)
    assert len(ds) == 3 and ds[0]["prompt"][0]["role"] == "user"
    assert ds[0]["task_id"] == make("sql").unwrapped.task_set.ids()[0]


@pytest.mark.slow  # about a minute on an idle 2-core CPU, several under load
def test_grpo_trainer_runs_on_an_agentgym_env_on_cpu(tmp_path, monkeypatch):
    from trl import GRPOConfig, GRPOTrainer

    from agentgym.integrations.tiny import tiny_chat_model

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = tiny_chat_model()
    base = trl_environment("arith")  # short prompts: the byte-level tiny tokenizer stays fast
    resets: list[str] = []

    class Recorded(base):  # type: ignore[misc, valid-type]
        def reset(self, **row):
            resets.append(row["task_id"])
            return super().reset(**row)

    dataset = trl_dataset("arith", limit=4)
    args = GRPOConfig(
        output_dir=str(tmp_path), use_cpu=True, max_steps=2, per_device_train_batch_size=2,
        num_generations=2, max_completion_length=12, logging_steps=1, report_to="none",
        save_strategy="no", learning_rate=1e-3, bf16=False, max_tool_calling_iterations=2,
        temperature=1.0, seed=0,
    )
    trainer = GRPOTrainer(model=model, args=args, train_dataset=dataset,
                          processing_class=tokenizer, environment_factory=Recorded)
    result = trainer.train()
    assert result.global_step == 2
    assert len(resets) == 4 and set(resets) <= set(dataset["task_id"])
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert logged and all(h["reward"] == 0.0 for h in logged)  # a random model scores nothing
    assert any(k.startswith("rewards/") for h in logged for k in h)
