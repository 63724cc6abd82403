"""What a new user trips on in the first hour (issue 36): model-name typos, a policy-name typo,
what ``--policy hf`` loads, a busy port, the split ``serve`` serves, ``info``'s splits."""

from __future__ import annotations

import socket
import time

import pytest
from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.errors import PolicyError
from agentgym.models import check_model_name, describe_model

runner = CliRunner()
WIDE = {"COLUMNS": "300"}


@pytest.mark.parametrize("name", ["smollm3-135m", "smolm2", "smollm2-135m-instruc"])
def test_a_mistyped_alias_fails_offline_at_once_with_a_suggestion(name):
    started = time.monotonic()
    with pytest.raises(PolicyError) as caught:
        check_model_name(name)
    assert time.monotonic() - started < 1.0
    message = str(caught.value)
    assert f"unknown model {name!r}" in message and "did you mean smollm2" in message
    assert "smollm2-135m" in message  # the known aliases are listed


def test_aliases_folders_and_hub_ids_pass_the_check(tmp_path):
    for name in ("smollm2-135m", "smollm2", str(tmp_path), "HuggingFaceTB/SmolLM2-135M"):
        check_model_name(name)
    with pytest.raises(FileNotFoundError, match="no such model folder"):
        check_model_name(str(tmp_path / "gone"))


@pytest.mark.parametrize("command", [
    ["eval", "arith", "--policy", "hf:smollm3-135m", "-n", "1"],
    ["gateway", "hf:smollm3-135m", "--port", "0"],
])
def test_eval_and_gateway_refuse_a_mistyped_model_in_one_line(command):
    pytest.importorskip("transformers")
    started = time.monotonic()
    result = runner.invoke(app, command, env=WIDE)
    assert time.monotonic() - started < 5.0  # no hub retries (51 s before the fix)
    assert result.exit_code == 1, result.output
    assert "unknown model 'smollm3-135m'" in result.output and "did you mean" in result.output
    assert "Traceback" not in result.output and "internet" not in result.output


def test_train_refuses_a_mistyped_model_in_one_line(tmp_path):
    pytest.importorskip("torch")
    config = tmp_path / "c.yaml"
    config.write_text(f"env: arith\nmodel: smollm3-135m\noutput_dir: {tmp_path / 'run'}\n")
    result = runner.invoke(app, ["train", str(config), "steps=1"], env=WIDE)
    assert result.exit_code == 1, result.output
    assert "unknown model 'smollm3-135m'" in result.output
    assert "did you mean smollm2" in result.output


def test_a_mistyped_policy_name_gets_a_suggestion():
    result = runner.invoke(app, ["eval", "arith", "--policy", "scriptd", "-n", "1"], env=WIDE)
    assert result.exit_code == 1
    assert "no policy named 'scriptd'" in result.output
    assert "did you mean scripted?" in result.output


def test_the_eval_table_names_the_model_a_bare_hf_policy_loaded():
    from agentgym.cli.evaluate import policy_label

    assert policy_label("hf", {"model": "smollm2-135m"}) == "hf (model smollm2-135m-instruct)"
    assert policy_label("hf:smollm2-135m", {"model": "smollm2-135m"}) == "hf:smollm2-135m"
    assert policy_label("scripted", {"name": "scripted"}) == "scripted"
    assert "bundled" in describe_model("smollm2")


@pytest.fixture
def busy_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.parametrize("command", [
    ["serve", "arith", "--http"],
    ["serve", "arith", "--mcp", "--transport", "http"],
    ["gateway", "hf:smollm2-135m"],
])
def test_a_busy_port_is_one_line_with_a_free_one_before_anything_is_announced(command,
                                                                              busy_port):
    pytest.importorskip("uvicorn")
    result = runner.invoke(app, [*command, "--port", str(busy_port)], env=WIDE)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert f"port {busy_port} on 127.0.0.1 is already in use" in lines[0]
    assert "pass --port " in lines[0]
    suggested = int(lines[0].split("pass --port ")[1].split(",")[0])
    with socket.socket() as sock:  # the port suggested is free
        sock.bind(("127.0.0.1", suggested))


def test_serve_serves_the_held_out_split_by_default_and_says_so(monkeypatch):
    pytest.importorskip("uvicorn")
    import agentgym.serve.run as run

    seen = {}

    def fake_serve_http(env_ids, **kwargs):
        seen.update(kwargs)
        return False

    monkeypatch.setattr(run, "serve_http", fake_serve_http)
    result = runner.invoke(app, ["serve", "arith", "--http", "--port", "0"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert seen["env_kwargs"] == {"split": "test"}
    assert "(test split)" in result.output
    help_text = runner.invoke(app, ["serve", "--help"], env=WIDE).output
    assert "held-out" in help_text


def test_info_prints_splits_as_a_sentence_not_a_dict():
    result = runner.invoke(app, ["info", "arith"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "{'" not in result.output and "splits" in result.output


def test_play_ends_on_ctrl_d_with_status_0_and_counts_turns():
    result = runner.invoke(app, ["play", "guess-number", "--seed", "0"], input="50\n", env=WIDE)
    assert result.exit_code == 0, result.output
    assert "Aborted" not in result.output and "bye" in result.output
    assert "action (turn 1/" in result.output and "action (turn 2/" in result.output


def test_a_resumed_eval_bar_counts_the_stored_successes(tmp_path):
    from rich.console import Console

    from agentgym.cli.eval_progress import EvalProgress
    from agentgym.rollout.evaluate import EvalConfig, run_eval

    out = tmp_path / "eval"
    run_eval(EvalConfig("shop/price-v0", "scripted", "test", 4, out=str(out)))
    starts = []
    bar = EvalProgress("eval", Console(file=open(tmp_path / "bar.txt", "w")))  # noqa: SIM115
    original = bar.run_started

    def started(total, skipped, wins=0):
        starts.append((total, skipped, wins))
        original(total, skipped, wins)

    try:
        run_eval(EvalConfig("shop/price-v0", "scripted", "test", 6, out=str(out), resume=True),
                 progress=bar.episode_finished, on_start=started)
    finally:
        bar.stop()
    assert starts == [(6, 4, 4)]  # the expert won the 4 stored episodes
    assert bar.wins == 6 and bar.tasks[0].completed == 6


def test_train_ends_with_how_to_prune_runs(tmp_path):
    from types import SimpleNamespace

    from agentgym.cli.train import _report

    out = tmp_path / "runs" / "x"
    (out / "checkpoints").mkdir(parents=True)
    (out / "checkpoints" / "w").write_bytes(b"0" * 1000)
    from agentgym.cli.app import console

    with console.capture() as captured:
        _report(SimpleNamespace(baseline={}, final={}, output_dir=out, report_png=None), "grpo")
    text = captured.get()
    assert f"du -sh {tmp_path / 'runs'}/*" in text and f"rm -rf {out}" in text
    assert "keep_checkpoints=1" in text


def test_loading_the_model_prints_no_progress_bar(capfd):
    pytest.importorskip("transformers")
    from agentgym.models import load_model_and_tokenizer

    load_model_and_tokenizer("smollm2-135m")
    err = capfd.readouterr().err
    assert "Loading weights" not in err and "it/s]" not in err, err
    from transformers.utils import logging as hf_logging

    assert hf_logging.is_progress_bar_enabled()  # switched back on after the load
