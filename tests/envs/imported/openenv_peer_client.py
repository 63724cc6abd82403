"""openenv-core's own client playing episodes against a server: run by ``.venv-openenv``'s
interpreter (scripts/setup_openenv_venv.sh), never imported by the project.

    .venv-openenv/bin/python openenv_peer_client.py URL EPISODES_JSON

``EPISODES_JSON`` is a list of ``{"seed": s, "actions": [action dict, ...]}``; prints one JSON
line: per episode, the reset observation and each step's ``reward``/``done``/observation.
With ``--bench N`` it instead plays N reset+step episodes of the first one and prints
``{"seconds": ...}``.
"""

from __future__ import annotations

import json
import sys
import time

from openenv.core.generic_client import GenericEnvClient


def play(url: str, episodes: list[dict]) -> list[dict]:
    out = []
    with GenericEnvClient(base_url=url).sync() as env:
        for episode in episodes:
            first = env.reset(seed=episode["seed"])
            steps = []
            for action in episode["actions"]:
                result = env.step(action)
                steps.append({"reward": result.reward, "done": result.done,
                              "observation": result.observation})
                if result.done:
                    break
            out.append({"reset": first.observation, "steps": steps})
    return out


def bench(url: str, episode: dict, n: int) -> float:
    with GenericEnvClient(base_url=url).sync() as env:
        started = time.perf_counter()
        for i in range(n):
            env.reset(seed=episode["seed"] + i)
            env.step(episode["actions"][0])
        return time.perf_counter() - started


if __name__ == "__main__":
    url, episodes = sys.argv[1], json.loads(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == "--bench":
        print(json.dumps({"seconds": bench(url, episodes[0], int(sys.argv[4]))}))
    else:
        print(json.dumps(play(url, episodes), default=str))
