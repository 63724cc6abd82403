"""``ChatFormat`` lives in :mod:`agentgym.policies.chat` (policies use it; rollouts too).

Kept so ``from agentgym.rollout.chat import ChatFormat`` goes on working.
"""

from __future__ import annotations

from ..policies.chat import ChatFormat

__all__ = ["ChatFormat"]
