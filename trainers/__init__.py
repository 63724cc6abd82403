"""Trainers (``agentgym.trainers``): GRPO family and semi-online RL, on the public agentgym API."""
