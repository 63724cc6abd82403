"""BrowserGym's side of benchmarks/web_env.py, run by the python of its own venv.

Usage (the parent benchmark does this): ``python web_env_browsergym.py TASKS EPISODES SEED``.
Plays the same episodes as ours with the same actions (hover then click the task's target,
found by the same JavaScript) through ``gymnasium.make("browsergym/miniwob.<task>")`` and prints
one JSON line: reset and step latencies in seconds and the successes. BrowserGym's env is
synchronous, so concurrency comes from running several of these processes at once.
"""

import json
import sys
import time

import browsergym.miniwob  # noqa: F401  (registers the envs)
import gymnasium as gym


def main() -> None:
    tasks = sys.argv[1].split(",")
    episodes = int(sys.argv[2])
    seed0 = int(sys.argv[3])
    targets = json.loads(sys.argv[4])
    resets, steps, successes, failures = [], [], 0, []
    envs = {}
    for i in range(episodes):
        task = tasks[i % len(tasks)]
        if task not in envs:
            envs[task] = gym.make(f"browsergym/miniwob.{task}", headless=True)
        env = envs[task]
        t = time.perf_counter()
        try:
            env.reset(seed=seed0 + i)
        except Exception as e:  # BrowserGym's own 5 s page timeout on a loaded machine
            failures.append(f"reset: {type(e).__name__}: {str(e)[:120]}")
            continue
        resets.append(time.perf_counter() - t)
        page = env.unwrapped.page
        bid = page.evaluate("() => { const el = (" + targets[task] + ")();"
                            " return el.getAttribute('bid'); }")
        reward = 0.0
        for action in (f"hover('{bid}')", f"click('{bid}')"):
            t = time.perf_counter()
            _, reward, terminated, truncated, _ = env.step(action)
            steps.append(time.perf_counter() - t)
            if terminated or truncated:
                break
        successes += int(reward > 0)
    for env in envs.values():
        env.close()
    print(json.dumps({"reset_s": resets, "step_s": steps, "successes": successes,
                      "episodes": episodes, "failures": failures}))


if __name__ == "__main__":
    main()
