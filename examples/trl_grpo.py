"""GRPO with TRL's ``GRPOTrainer`` on an agentgym env, through ``environment_factory``.

    python examples/trl_grpo.py                      # tiny random model, 2 steps, CPU (no download)
    python examples/trl_grpo.py --model Qwen/Qwen3-0.6B --env sql --steps 50   # a real run

The env's tools become methods TRL can call; the env's reward is TRL's reward. Any agentgym env
works, including a served one: ``--env remote:http://cpu-host:8000/sql``.
"""

from __future__ import annotations

import argparse
import os
import tempfile

from agentgym.integrations.trl import trl_dataset, trl_environment


def main() -> None:
    """Build the dataset, the environment class and the trainer; train; print the rewards."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="arith")
    parser.add_argument("--model", default="", help="a Hugging Face model id (default: tiny)")
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    if args.model:
        model, tokenizer = args.model, None
    else:
        from agentgym.integrations.tiny import tiny_chat_model

        model, tokenizer = tiny_chat_model()
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="trl-agentgym-"), max_steps=args.steps,
        per_device_train_batch_size=2, num_generations=2, max_completion_length=64,
        max_tool_calling_iterations=4, logging_steps=1, report_to="none", save_strategy="no",
        use_cpu=not args.model,
    )
    trainer = GRPOTrainer(
        model=model, args=config, processing_class=tokenizer,
        train_dataset=trl_dataset(args.env, limit=16),
        environment_factory=trl_environment(args.env),
    )
    trainer.train()
    for entry in trainer.state.log_history:
        if "reward" in entry:
            print(f"step {entry.get('step')}: reward {entry['reward']:.3f}")


if __name__ == "__main__":
    main()
