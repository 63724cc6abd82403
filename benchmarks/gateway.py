"""The gateway's cost: the same episodes through the gateway (HTTP) and directly through the policy.

    python benchmarks/gateway.py [--model smollm2-135m|tiny] [--episodes 16] [--turns 3]

Each episode is a multi-turn tool-style conversation: a prompt, then ``--turns`` model turns, each
followed by a tool result. The direct arm builds the exact ids as the rollout engine does
(:class:`~agentgym.policies.chat.ChatFormat`: first prompt, then deltas) and calls
``policy.agenerate``; the gateway arm sends the OpenAI chat history over loopback HTTP to a live
gateway, which rebuilds the same ids from its records. Both arms run the episodes concurrently
with the same sampling seeds, so they decode the same tokens (the generated totals are printed).
Then requests per second through the gateway at 1, 16 and 64 concurrent agents.

The last line is ``gateway_vs_direct_time_ratio=<gateway seconds / direct seconds>`` (goal <= 1.05).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import httpx

from agentgym.gateway import Gateway, GatewayServer
from agentgym.policies.base import EpisodeContext, Policy, SamplingParams
from agentgym.policies.hf import HFPolicy

SYSTEM = "You are a shop assistant. Answer briefly."


def _policy(model: str) -> Policy:
    if model == "tiny":
        from agentgym.trainers.tiny import tiny_llama

        module, tok = tiny_llama()
        return HFPolicy(module, tok, device="cpu", num_threads=1)
    return HFPolicy(model, device="cpu", num_threads=1)


def _tool_result(episode: int, turn: int) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{turn}", "content": f"price {episode + turn}.00"}


async def _direct(policy: Policy, episode: int, turns: int, max_tokens: int) -> int:
    fmt = policy.chat_format()
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"How much do {episode} pens cost?"}]
    ids = fmt.prompt_ids(messages)
    made = 0
    for turn in range(turns):
        sampling = SamplingParams(max_tokens=max_tokens, seed=episode * 100 + turn)
        gen = await policy.agenerate(messages, sampling=sampling, prompt_token_ids=ids,
                                     episode=EpisodeContext(f"d{episode}", turn=turn))
        made += len(gen.token_ids)
        ids = [*ids, *gen.token_ids]
        messages.append({"role": "assistant", "content": gen.text})
        if turn + 1 < turns:
            message = _tool_result(episode, turn)
            ids += fmt.observation_ids(message, gen.token_ids)
            messages.append(message)
    return made


async def _direct_all(policy: Policy, episodes: int, turns: int, max_tokens: int) -> list[int]:
    return list(await asyncio.gather(*(_direct(policy, e, turns, max_tokens)
                                       for e in range(episodes))))


async def _through_gateway(client: httpx.AsyncClient, url: str, episode: int, turns: int,
                           max_tokens: int, tag: str) -> int:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"How much do {episode} pens cost?"}]
    made = 0
    for turn in range(turns):
        r = await client.post(f"{url}/episodes/{tag}{episode}/v1/chat/completions", json={
            "model": "m", "messages": messages, "max_tokens": max_tokens,
            "seed": episode * 100 + turn})
        r.raise_for_status()
        out = r.json()
        made += out["usage"]["completion_tokens"]
        messages.append(out["choices"][0]["message"])
        if turn + 1 < turns:
            messages.append(_tool_result(episode, turn))
    return made


async def _gateway_arm(server: GatewayServer, episodes: int, turns: int, max_tokens: int,
                       tag: str) -> tuple[float, int]:
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        t0 = time.perf_counter()
        made = await asyncio.gather(*(_through_gateway(client, server.url, e, turns, max_tokens,
                                                       tag) for e in range(episodes)))
        return time.perf_counter() - t0, sum(made)


def main() -> None:
    """Run both arms and the concurrency sweep; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each arm")
    args = parser.parse_args()
    policy = _policy(args.model)
    server = GatewayServer(Gateway(policy)).start()
    try:
        direct_s, gateway_s = [], []
        for r in range(args.rounds):  # alternate the arms so load drifts hit both
            t0 = time.perf_counter()
            made = server.call(_direct_all(policy, args.episodes, args.turns, args.max_tokens),
                               timeout_s=3600)
            direct_s.append(time.perf_counter() - t0)
            print(f"direct  round {r}: {direct_s[-1]:.2f}s, {sum(made)} tokens generated")
            secs, tokens = asyncio.run(_gateway_arm(server, args.episodes, args.turns,
                                                    args.max_tokens, f"g{r}-"))
            gateway_s.append(secs)
            print(f"gateway round {r}: {secs:.2f}s, {tokens} tokens generated")
        server.gateway.episodes.clear()
        for agents in (1, 16, 64):
            secs, _ = asyncio.run(_gateway_arm(server, agents, 1, args.max_tokens, f"c{agents}-"))
            server.gateway.episodes.clear()
            print(f"gateway requests_per_s at {agents} concurrent agents: {agents / secs:.2f}")
    finally:
        server.stop()
        policy.close()
    ratio = min(gateway_s) / min(direct_s)
    print(f"direct best {min(direct_s):.2f}s, gateway best {min(gateway_s):.2f}s "
          f"({args.episodes} episodes x {args.turns} turns, {args.model})")
    print(f"gateway_vs_direct_time_ratio={ratio:.3f}")


if __name__ == "__main__":
    main()
