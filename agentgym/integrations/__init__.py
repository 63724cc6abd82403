"""Adapters that let other RL frameworks train on agentgym envs.

- :mod:`agentgym.integrations.trl`: TRL's ``GRPOTrainer`` ``environment_factory`` hook.
- :mod:`agentgym.integrations.verl`: verl's agent loop (``AgentLoopBase``).
- :mod:`agentgym.integrations.tiny`: a tiny random chat model for smoke runs (no download).

Each module imports its framework only when used.
"""
