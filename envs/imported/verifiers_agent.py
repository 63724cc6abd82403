"""One verifiers episode in verifiers' own loop, its model calls through agentgym's gateway.

The agent program of ``rollout_source: gateway`` for verifiers envs that cannot run turn by turn
in agentgym's engine (an env with its own ``Env`` class, a taskset that ships its own harness;
docs/interop.md). The trainer starts it once per episode, in the agent's jail, with
``.venv-verifiers/bin/python``::

    python -P verifiers_agent.py [--env-args JSON] [--harness ID] [--max-turns N] [--record DIR]

It reads ``AGENTGYM_TASK_ID`` (``<taskset id>/<idx>``, the importer's task ids),
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (the gateway's episode URL and agent key), loads the
env as ``vf-eval`` would (``load_environment`` over the taskset id and ``--env-args``: the
taskset's config fields, plus the importer's ``path`` and ``max_tasks``), every agent seat on
the ``subprocess`` runtime (inside the jail), and runs ONE episode of that task with verifiers'
own ``Env.run_episode`` (its harness program, its interception server, its tool servers), its
client pointed at the gateway, so every model call is recorded there token-exactly.

Its reward is NOT trusted: this process runs model-influenced code (tools, harness programs). The
trainer scores each recorded branch itself (``reward: env`` over ``verifiers:<id>`` with
``loop=true``: the model's recorded turns replayed in the trusted worker, ``Task.score``).
``--record DIR`` writes verifiers' own episode record (``<episode id>.json``) for comparison in
tests. Exit status 0 when the episode ran; 1 with the error on stderr when verifiers reports it
failed or the env is one whose episodes the trainer could not score (:func:`loop_refusal`; the
trainer then aborts the episode with that reason); 2 for bad arguments.

Imports only the standard library and verifiers (it runs in ``.venv-verifiers``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any


def loop_refusal(ident: str, env_cls: Any, config: Any) -> str:
    """Why an episode of ``env_cls`` under ``config``, played in verifiers' own loop, could not
    be scored from the model's recorded turns alone (empty: it can). The worker refuses such an
    env at load (``loop=True``), and this program refuses to play it."""
    from verifiers.v1.configs.agent import agent_config_fields
    from verifiers.v1.configs.env import default_agent_harness
    from verifiers.v1.env import Env
    from verifiers.v1.utils.loaders import harness_class

    seats = agent_config_fields(config)
    if len(seats) != 1:
        return (f"{ident}'s Env {env_cls.__name__} has {len(seats)} agent seats "
                f"({', '.join(seats)}): every seat's model calls would be trained as the policy's")
    if env_cls.finalize is not Env.finalize:
        return (f"{ident}'s Env {env_cls.__name__} judges its episodes in its own finalize() "
                "(rewards from the agent's process, which the model's code can reach)")
    [seat] = seats.values()
    harness = seat.harness if seat.harness is not None else default_agent_harness(ident)
    if harness_class(harness.id).EXECUTES_CODE:
        return (f"{ident}'s agent runs the {harness.id} harness, which executes the model's code: "
                "its results cannot be reproduced from the model's recorded turns (pin one that "
                "does not: harness=null with loop=True, and the agent's --harness null)")
    return ""


def config(ident: str, env_args: dict[str, Any], harness: str, max_turns: int | None) -> Any:
    """verifiers' env config for ``ident``: every seat on the subprocess runtime, with
    ``harness`` (when given) as its harness."""
    from verifiers.v1.configs.agent import AgentConfig
    from verifiers.v1.utils.loaders import env_config_type, resolve_env_config

    seats = [name for name, field in env_config_type(ident, "").model_fields.items()
             if isinstance(field.default, AgentConfig)]
    raw: dict[str, Any] = {"taskset": {"id": ident, **env_args}}
    for seat in seats:
        raw[seat] = {"runtime": {"type": "subprocess"}}
        if harness:
            raw[seat]["harness"] = {"id": harness}
        if max_turns:
            raw[seat]["max_turns"] = max_turns
    return resolve_env_config(raw)


def _task(env: Any, idx: int, max_tasks: int | None) -> Any:
    for i, task in enumerate(env.taskset):
        if max_tasks is not None and i >= max_tasks:
            break
        if task.data.idx == idx:
            return task
    raise SystemExit(f"no task {idx} in {env.config.taskset.id}")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play the task in ``AGENTGYM_TASK_ID`` once; verifiers' episode record."""
    from verifiers.v1.clients import EvalClientConfig, ModelContext
    from verifiers.v1.utils.loaders import load_environment

    ident, _, idx = os.environ["AGENTGYM_TASK_ID"].rpartition("/")
    env_args = dict(json.loads(args.env_args))
    for folder in ([env_args.pop("path")] if isinstance(env_args.get("path"), str)
                   else env_args.pop("path", None) or []):
        sys.path.insert(0, str(Path(folder).resolve()))
    max_tasks = env_args.pop("max_tasks", None)
    for own in ("loop", "split", "seed", "test_size", "harness"):  # the importer's own
        env_args.pop(own, None)
    from verifiers.v1.utils.loaders import environment_class

    resolved = config(ident, env_args, args.harness, args.max_turns)
    refusal = loop_refusal(ident, environment_class(ident, resolved.id), resolved)
    if refusal:
        raise SystemExit(f"not played: {refusal}")
    env = load_environment(resolved)
    task = _task(env, int(idx), max_tasks)
    ctx = ModelContext(model=args.model, client=EvalClientConfig(
        base_url=os.environ["OPENAI_BASE_URL"], api_key_var="OPENAI_API_KEY"))
    async with env.serving():
        episode = await env.run_episode(task, ctx)
    return dict(episode.model_dump(mode="json"))


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the episode, report verifiers' verdict by the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env-args", default="{}", help="the taskset's config (JSON object)")
    parser.add_argument("--harness", default="", help="a harness id for every seat")
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument("--model", default="agentgym")
    parser.add_argument("--record", default="", help="write verifiers' episode record here")
    args = parser.parse_args(argv)
    if not isinstance(json.loads(args.env_args), dict) or "AGENTGYM_TASK_ID" not in os.environ:
        parser.error("--env-args is a JSON object, and AGENTGYM_TASK_ID must be set")
    # the harness program is prepared with the uv next to this interpreter
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    record = asyncio.run(run(args))
    if args.record:
        name = os.environ.get("AGENTGYM_EPISODE_ID", "episode")
        Path(args.record, f"{name}.json").write_text(json.dumps(record))
    errors = record.get("errors") or [e for t in record.get("traces") or []
                                      for e in t.get("errors") or []]
    if not record.get("ok") or errors:
        sys.stderr.write(f"verifiers' episode failed: {json.dumps(errors)[:1500]}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
