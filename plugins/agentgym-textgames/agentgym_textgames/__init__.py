"""Example agentgym plugin: two small text games whose actions are tool calls."""

from .games import GuessNumberEnv, WordleEnv

__all__ = ["GuessNumberEnv", "WordleEnv"]
