"""Who may do what at the gateway: the run token, client tokens and per-episode keys.

Every agent program is untrusted, and so is any code the model writes inside it, so nothing an
agent holds may set a reward or reach another episode:

- the **run token** (``--token``, the guard's bearer) opens episodes, chats in any episode and
  reads any episode, but posts no reward;
- a **client token** (:meth:`Credentials.client`) opens episodes counted against its own
  ``max_episodes_per_client`` cap, and reaches those episodes only;
- each episode gets two keys when it is opened (:class:`EpisodeKeys`): the **agent key** (chat
  calls of that episode only: the agent's ``OPENAI_API_KEY``) and the **reward key** (``POST
  /episodes/<id>/reward`` of that episode only: the harness's or scorer's, never the agent's).
  Both die when the episode is collected.

Keys are 256-bit random strings; they are stored by their SHA-256, so a lookup's timing says
nothing about a key.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..serve.guard import new_token


@dataclass(frozen=True)
class Principal:
    """The holder of a credential."""

    kind: str
    """``run`` (the run token, or anyone on a gateway without one), ``client``, ``agent``
    (an episode's agent key) or ``scorer`` (an episode's reward key)."""
    client: str
    """Whose episode cap an episode this principal opens counts against."""
    episode: str | None = None
    """The one episode an ``agent`` or ``scorer`` key reaches."""

    def may_chat(self, episode: str, owner: str | None) -> bool:
        """Whether this principal may call the model in ``episode`` (``owner``: the client that
        opened it, None when it is not open). An agent key reaches its own open episode only."""
        if self.kind == "run":
            return True
        if self.kind == "client":
            return owner in (None, self.client)
        return self.kind == "agent" and self.episode == episode and owner is not None

    def opens_as(self) -> str | None:
        """The client a new episode this principal opens counts against (None: it opens
        none)."""
        return self.client if self.kind in ("run", "client") else None

    def may_read(self, episode: str, owner: str) -> bool:
        """Whether this principal may read ``episode`` (opened by client ``owner``)."""
        if self.kind == "run":
            return True
        if self.kind == "client":
            return owner == self.client
        return self.episode == episode

    def may_reward(self, episode: str) -> bool:
        """Whether this principal may set ``episode``'s reward: its reward key only."""
        return self.kind == "scorer" and self.episode == episode


RUN = Principal("run", "run")
"""The run token's holder (and everyone, on a gateway without a token)."""


@dataclass(frozen=True)
class EpisodeKeys:
    """The two keys of one episode, returned once when it is opened."""

    episode: str
    agent: str
    """Chat calls of this episode only (the agent's ``OPENAI_API_KEY``)."""
    reward: str
    """This episode's reward only (the scorer's; never give it to the agent)."""


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


class Credentials:
    """The gateway's issued keys: who each one is, until it is revoked."""

    def __init__(self) -> None:
        self._by_digest: dict[str, Principal] = {}

    def client(self, name: str) -> str:
        """A new token for client ``name`` (it opens and reaches its own episodes)."""
        return self._issue(Principal("client", name))

    def episode(self, episode: str, client: str) -> EpisodeKeys:
        """Fresh agent and reward keys for ``episode`` (opened by ``client``)."""
        return EpisodeKeys(episode, self._issue(Principal("agent", client, episode)),
                           self._issue(Principal("scorer", client, episode)))

    def revoke_episode(self, episode: str) -> None:
        """Forget both keys of ``episode``."""
        for digest in [d for d, p in self._by_digest.items() if p.episode == episode]:
            del self._by_digest[digest]

    def who(self, key: str) -> Principal | None:
        """The holder of ``key``, or None for an unknown or revoked key."""
        return self._by_digest.get(_digest(key)) if key else None

    def _issue(self, principal: Principal) -> str:
        key = new_token()
        self._by_digest[_digest(key)] = principal
        return key


__all__ = ["RUN", "Credentials", "EpisodeKeys", "Principal"]
