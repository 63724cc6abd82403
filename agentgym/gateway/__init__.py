"""``agentgym gateway``: an OpenAI-compatible server that records external agents token-exactly.

An agent program (any OpenAI client, an agent framework) points ``OPENAI_BASE_URL`` at
``http://127.0.0.1:PORT/episodes/<id>/v1``; every call is answered by a project policy and
recorded into :class:`~agentgym.rollout.trajectory.Trajectory` branches with the exact prompt and
generated ids, behaviour log-probs and policy version per token (see docs/gateway.md).
"""

from .agent_jail import AgentJail, bubblewrap_works, minimal_env
from .app import EPISODE_HEADER, create_app
from .credentials import Credentials, EpisodeKeys, Principal
from .episodes import Branch, Episode, GatewayError, Mismatch
from .messages import Reply
from .server import GatewayServer, mcp_command
from .service import ChatResult, Gateway, GatewayLimits

__all__ = [
    "AgentJail",
    "EPISODE_HEADER",
    "Branch",
    "ChatResult",
    "Credentials",
    "Episode",
    "EpisodeKeys",
    "Gateway",
    "GatewayError",
    "GatewayLimits",
    "GatewayServer",
    "Mismatch",
    "Principal",
    "Reply",
    "bubblewrap_works",
    "create_app",
    "mcp_command",
    "minimal_env",
]
