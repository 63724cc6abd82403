"""`make demo`: the main job on the embedded defaults (replaced by a short training run later)."""

from __future__ import annotations

from rich.console import Console

import agentgym

console = Console()


def main() -> None:
    """Play one episode of every registered env that ships a scripted expert."""
    for env_id in agentgym.list_envs():
        env = agentgym.make(env_id)
        expert = getattr(env.unwrapped, "expert_actions", None)
        if expert is None:
            continue
        obs, info = env.reset(seed=0)
        console.rule(f"{env_id}  task {info.get('task_id')}")
        for action in expert(env.unwrapped.task):
            obs, reward, terminated, truncated, info = env.step(action)
            console.print(f"> {action}\n{obs['text']}", markup=False, highlight=False)
            if terminated or truncated:
                break
        console.print(f"[bold]reward {reward}  success {info.get('success')}[/]")
        env.close()


if __name__ == "__main__":
    main()
