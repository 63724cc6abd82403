"""verifiers' environments through ``make("verifiers:<taskset id>")``: envs written with
verifiers' own v1 classes (as its ``vf-init`` scaffold lays them out), played turn by turn in
agentgym's engine, scored by verifiers in its worker (``.venv-verifiers``).

verifiers pins openai<3 and mcp==2.0.0, so it lives in ``.venv-verifiers``
(``make setup-verifiers``); without it these tests skip.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.envs.imported import verifiers_client
from agentgym.testing import check_env
from agentgym.testing.rewards import check_rewards

pytestmark = pytest.mark.skipif(not verifiers_client.available(), reason="no .venv-verifiers "
                                "(make setup-verifiers: verifiers pins openai<3, mcp==2.0.0)")
runner = CliRunner()

MATH = '''
import verifiers.v1 as vf


class SumData(vf.TaskData):
    answer: str


class SumTask(vf.Task[SumData]):
    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        return 1.0 if trace.last_reply.strip() == self.data.answer else 0.0

    @vf.metric
    async def reply_chars(self, trace: vf.Trace) -> float:
        return float(len(trace.last_reply))


class SumConfig(vf.TasksetConfig):
    num_tasks: int = 10
    loose: bool = False
    """Pay any reply that contains the answer (a hackable reward, for the audit)."""


class LooseSumTask(SumTask):
    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        return 1.0 if self.data.answer in trace.last_reply else 0.0


class SumTaskset(vf.Taskset[SumTask, SumConfig]):
    def load(self):
        cls = LooseSumTask if self.config.loose else SumTask
        for i in range(self.config.num_tasks):
            yield cls(SumData(prompt=f"What is {i} + {i + 7}? Reply with the number only.",
                              system_prompt="You are a careful calculator.",
                              answer=str(2 * i + 7)), self.config.task)


__all__ = ["SumTaskset"]
'''

TOOLS = '''
import verifiers.v1 as vf

VALUES = {"red": "31", "green": "47", "blue": "58"}


class LookupToolset(vf.Toolset[vf.ToolsetConfig]):
    TOOL_PREFIX = "kv"

    @vf.tool
    def lookup(self, key: str) -> str:
        """Look a key's value up in the store."""
        print("looking up", key)  # a tool that prints must not break the worker's replies
        if key not in VALUES:
            raise ValueError(f"no key {key!r}")
        return VALUES[key]


class KVData(vf.TaskData):
    key: str
    answer: str
    expert_actions: list[str] = []


class KVTaskConfig(vf.TaskConfig):
    tools: vf.ToolsetConfig = vf.ToolsetConfig()


class KVTask(vf.Task[KVData, vf.State, KVTaskConfig]):
    @classmethod
    def toolsets(cls, config):
        return [LookupToolset(config.tools)]

    @vf.stop
    async def three_lookups(self, trace: vf.Trace) -> bool:
        return len(trace.tool_messages) >= 3

    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        looked = any(m.name == "kv_lookup" for m in trace.tool_messages)
        return 1.0 if looked and trace.last_reply.strip() == self.data.answer else 0.0


class KVConfig(vf.TasksetConfig):
    task: KVTaskConfig = KVTaskConfig()


class KVTaskset(vf.Taskset[KVTask, KVConfig]):
    def load(self):
        for key, value in VALUES.items():
            call = '<tool_call>{"name": "kv_lookup", "arguments": {"key": "%s"}}</tool_call>'
            yield KVTask(KVData(prompt=f"Find the value of {key} with the tool; reply with it.",
                                key=key, answer=value,
                                expert_actions=[call % key, value]), self.config.task)


__all__ = ["KVTaskset"]
'''

NEEDS_RUNTIME = '''
import verifiers.v1 as vf


class BoxTask(vf.Task[vf.TaskData]):
    @vf.reward
    async def file_written(self, trace: vf.Trace, runtime: vf.Runtime) -> float:
        return 1.0


class BoxTaskset(vf.Taskset[BoxTask, vf.TasksetConfig]):
    def load(self):
        yield BoxTask(vf.TaskData(prompt="Write /tmp/x."), self.config.task)


__all__ = ["BoxTaskset"]
'''

ENDLESS = '''
import verifiers.v1 as vf


class CountTaskset(vf.Taskset[vf.Task, vf.TasksetConfig]):
    INFINITE = True

    def load(self):
        i = 0
        while True:
            yield vf.Task(vf.TaskData(prompt=f"Say {i}."), self.config.task)
            i += 1


__all__ = ["CountTaskset"]
'''

SUM, KV = "verifiers:agentgym_vf_sum", "verifiers:agentgym_vf_kv"


@pytest.fixture(scope="module")
def envs_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Four verifiers env packages, on the worker's path through ``path=``."""
    root = tmp_path_factory.mktemp("vf-envs")
    for name, source in (("agentgym_vf_sum", MATH), ("agentgym_vf_kv", TOOLS),
                         ("agentgym_vf_box", NEEDS_RUNTIME), ("agentgym_vf_endless", ENDLESS)):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(textwrap.dedent(source))
    return str(root)


def test_a_single_turn_env_passes_check_env_and_scores_with_its_rubric(envs_dir: str) -> None:
    env = agentgym.make(SUM, path=envs_dir)
    check_env(env)
    base = env.unwrapped
    assert base.instructions == "You are a careful calculator."  # the rows' system prompt
    assert len(base.tools) == 0
    obs, info = env.reset(seed=3)
    row = base.task.data["row"]
    assert obs["text"] == row["prompt_text"] and info["task_id"] == f"agentgym_vf_sum/{row['idx']}"
    answer = row["data"]["answer"]
    _, reward, terminated, truncated, info = env.step(answer)
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    assert info["rewards"] == {"correct": {"score": 1.0, "weight": 1.0}}
    assert info["metrics"] == {"reply_chars": float(len(answer))}
    env.reset(seed=3)
    _, reward, terminated, _, info = env.step(f"It is {answer}.")
    assert (reward, terminated, info["success"]) == (0.0, True, False)


def test_a_tool_env_runs_its_toolset_turn_by_turn(envs_dir: str) -> None:
    env = agentgym.make(KV, path=envs_dir, test_size=0)
    check_env(env)
    base = env.unwrapped
    [schema] = base.tools.to_openai()
    assert schema["function"]["name"] == "kv_lookup"  # <server>_<tool>, as verifiers names it
    assert schema["function"]["parameters"]["required"] == ["key"]
    [mcp] = base.tools.to_mcp()  # the same schema for MCP clients
    assert (mcp["name"], mcp["inputSchema"]["required"]) == ("kv_lookup", ["key"])
    env.reset(options={"task_id": "agentgym_vf_kv/1"})  # green
    obs, reward, terminated, _, info = env.step(
        '<tool_call>{"name": "kv_lookup", "arguments": {"key": "green"}}</tool_call>')
    assert (obs["text"], reward, terminated) == ("47", 0.0, False) and "error" not in info
    obs, _, terminated, _, info = env.step(
        '<tool_call>{"name": "kv_lookup", "arguments": {"key": "cyan"}}</tool_call>')
    assert "no key 'cyan'" in obs["text"] and not terminated and "cyan" in info["error"]
    obs, _, terminated, _, info = env.step('<tool_call>{"name": "kv_lookup", "arguments": 7'
                                           '</tool_call>')
    assert obs["text"].startswith("Error: cannot read the tool call") and not terminated
    obs, _, terminated, _, info = env.step("4" * 300_000)  # a hostile length: not sent
    assert "at most" in obs["text"] and not terminated and "aborted" not in info
    _, reward, terminated, _, info = env.step("47")
    assert (reward, terminated, info["success"], info["stop"]) == (1.0, True, True,
                                                                   "no_tool_calls")


def test_a_stop_predicate_ends_the_episode_and_the_rubric_scores_it(envs_dir: str) -> None:
    env = agentgym.make(KV, path=envs_dir, test_size=0)
    env.reset(options={"task_id": "agentgym_vf_kv/0"})
    call = '<tool_call>{"name": "kv_lookup", "arguments": {"key": "red"}}</tool_call>'
    assert not env.step(call)[2] and not env.step(call)[2]
    _, reward, terminated, _, info = env.step(call)
    assert (reward, terminated, info["stop"]) == (0.0, True, "three_lookups")


def test_splits_seeds_and_the_turn_limit(envs_dir: str) -> None:
    train = agentgym.make(SUM, path=envs_dir, seed=1).unwrapped
    test = agentgym.make(SUM, path=envs_dir, seed=1, split="test").unwrapped
    assert (len(train.task_set), len(test.task_set)) == (8, 2)  # test_size=0.2 of 10 rows
    assert not {t.prompt for t in train.task_set} & {t.prompt for t in test.task_set}
    other = agentgym.make(SUM, path=envs_dir, seed=2, split="test").unwrapped
    assert set(other.task_set.ids()) != set(test.task_set.ids())  # the seed draws the split
    assert train.reset(seed=5)[0]["text"] == train.reset(seed=5)[0]["text"]
    few = agentgym.make(SUM, path=envs_dir, num_tasks=3, test_size=1).unwrapped  # env_args
    assert len(few.task_set) == 2
    env = agentgym.make(KV, path=envs_dir, max_turns=2)
    assert env.spec.max_episode_steps == 2
    env.reset(seed=0)
    env.step('<tool_call>{"name": "kv_lookup", "arguments": {"key": "red"}}</tool_call>')
    _, _, terminated, truncated, _ = env.step("<tool_call>{bad</tool_call>")
    assert (terminated, truncated) == (False, True)


def test_envs_that_need_verifiers_own_loop_are_refused_with_the_reason(envs_dir: str) -> None:
    with pytest.raises(agentgym.ConfigError, match="file_written needs a runtime.*own loop"):
        agentgym.make("verifiers:agentgym_vf_box", path=envs_dir)
    with pytest.raises(agentgym.EnvNotFound):
        agentgym.make("verifiers:agentgym_no_such_env", path=envs_dir)
    with pytest.raises(agentgym.EnvNotFound, match="expected an installed taskset"):
        agentgym.make("verifiers:../etc")
    with pytest.raises(agentgym.ConfigError, match="infinite: pass max_tasks"):
        agentgym.make("verifiers:agentgym_vf_endless", path=envs_dir)
    endless = agentgym.make("verifiers:agentgym_vf_endless", path=envs_dir, max_tasks=5)
    assert len(endless.unwrapped.task_set) == 4  # 5 rows, one of them in test


def test_the_audit_passes_an_exact_rubric_and_flags_a_loose_one(envs_dir: str) -> None:
    assert check_rewards(SUM, seeds=3, cheap=True, path=envs_dir).passed
    loose = check_rewards(SUM, seeds=3, cheap=True, path=envs_dir, loose=True)
    assert not loose.passed
    assert {"every number", "the whole answer space"} <= {p.name for p in loose.failures}


def test_eval_with_the_scripted_policy_and_audit_from_the_command_line(envs_dir: str) -> None:
    path = f"path={envs_dir}"
    result = runner.invoke(app, ["eval", SUM, "--policy", "scripted", "--split", "train",
                                 "-n", "4", "--env-arg", path])
    assert result.exit_code == 0, result.output
    assert "100.0% (4/4 completed)" in result.output
    result = runner.invoke(app, ["eval", KV, "--policy", "scripted", "--split", "train",
                                 "-n", "3", "--env-arg", path, "--env-arg", "test_size=0"])
    assert result.exit_code == 0, result.output
    assert "100.0% (3/3 completed)" in result.output
    result = runner.invoke(app, ["audit", SUM, "--cheap", "--env-arg", path,
                                 "--env-arg", "loose=true"])
    assert result.exit_code == 2, result.output
    assert "every number" in result.output and "FAIL" in result.output


def test_a_dead_worker_aborts_the_episode_with_its_reason(envs_dir: str) -> None:
    env, other = agentgym.make(SUM, path=envs_dir), agentgym.make(SUM, path=envs_dir)
    env.reset(seed=0)
    other.reset(seed=1)
    pid = verifiers_client.worker().pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    _, reward, terminated, truncated, info = env.step("7")
    assert (reward, terminated, truncated, info["aborted"]) == (0.0, False, True, True)
    assert "verifiers worker failed" in info["abort_reason"]
    other.close()  # its session died with the worker: closing starts no worker to end it
    assert not verifiers_client.worker().alive
    obs, _ = env.reset(seed=0)  # a fresh worker takes over
    assert obs["text"] and verifiers_client.worker().pid != pid
    assert Path(verifiers_client.worker().log_path).exists()


class _Scripted(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that streams the same reply to every chat request."""

    reply = "9"

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        base = {"id": "c", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model", "m")}
        chunks = [{**base, "choices": [{"index": 0, "finish_reason": None, "delta": {
                      "role": "assistant", "content": self.reply}}]},
                  {**base, "choices": [{"index": 0, "finish_reason": "stop", "delta": {}}]},
                  {**base, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                                    "total_tokens": 2}}]
        data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
        data += b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture()
def scripted_model() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_verifiers_own_loop_and_the_importer_pay_the_same_rewards(
        envs_dir: str, scripted_model: str, tmp_path: Path) -> None:
    """vf-eval (verifiers' own rollout: its null chat harness program, interception server and
    scoring) and make("verifiers:...") score the same reply on every task alike. The harness
    program's dependencies come from the package index through uv on first use."""
    venv_bin = Path(verifiers_client.worker_python()).parent
    if not (venv_bin / "uv").exists():
        pytest.skip("no uv in .venv-verifiers (make setup-verifiers)")
    env = {**os.environ, "PATH": f"{venv_bin}:{os.environ['PATH']}", "PYTHONPATH": envs_dir,
           "AGENTGYM_FAKE_KEY": "unused"}
    subprocess.run(
        [str(venv_bin / "vf-eval"), "agentgym_vf_sum", "--model", "m",
         "--client.base-url", scripted_model, "--client.api-key-var", "AGENTGYM_FAKE_KEY",
         "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
         "--no-push", "-o", str(tmp_path), "--select.limit", "10"],
        env=env, cwd=tmp_path, check=True, capture_output=True, timeout=900)
    [traces] = tmp_path.glob("*/traces.jsonl")
    theirs = {}
    for line in traces.read_text().splitlines():
        episode = json.loads(line)
        [trace] = episode["traces"]
        assert trace["stop_condition"] == "agent_completed", trace.get("errors")
        theirs[episode["task"]["data"]["idx"]] = sum(
            r["score"] * r["weight"] for r in trace["rewards"].values())
    ours = {}
    made = agentgym.make(SUM, path=envs_dir, test_size=0)
    for idx in theirs:
        made.reset(options={"task_id": f"agentgym_vf_sum/{idx}"})
        ours[idx] = made.step(_Scripted.reply)[1]
    assert len(theirs) == 10 and ours == theirs
    assert theirs[1] == 1.0 and sum(theirs.values()) == 1.0  # 1 + 8 = 9 only
