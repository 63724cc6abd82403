"""Noise a new user sees: deprecation warnings in decode, backticks in --help."""

import logging
import warnings
from contextlib import nullcontext

import pytest
from typer.testing import CliRunner

from agentgym.cli import app

runner = CliRunner()


def test_decode_uses_the_current_cache_argument(capfd):
    pytest.importorskip("transformers")
    from agentgym.policies.hf_decode import DecodeRequest, decode_batch
    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    model.eval()
    logged: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            logged.append(record.getMessage())

    handler = Catch()
    tlog = logging.getLogger("transformers")
    tlog.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = decode_batch(model, [DecodeRequest([1, 2, 3], 6, seed=1)], temperature=0.0,
                               eos_ids={258}, pad_id=0, weights=lambda: nullcontext(0))
    finally:
        tlog.removeHandler(handler)
    assert len(out[0].token_ids) == 6  # the cache was used: six steps decoded
    noisy = [str(w.message) for w in seen if "past_key_values" in str(w.message)]
    noisy += [m for m in logged if "past_key_values" in m]
    noisy += [line for line in capfd.readouterr().err.splitlines() if "past_key_values" in line]
    assert not noisy, noisy


@pytest.mark.parametrize("command", [[], ["list"], ["eval"], ["train"], ["play"], ["record"],
                                     ["info"], ["tools"], ["serve"], ["serve-retriever"]])
def test_help_shows_no_literal_backticks(command):
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "``" not in result.output, result.output


def test_wrapped_models_pass_the_cache_by_its_current_name():
    peft = pytest.importorskip("peft")
    from agentgym.policies.hf_decode import cache_argument
    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    lora = peft.get_peft_model(model, peft.LoraConfig(r=2, target_modules=["q_proj"]))
    assert cache_argument(model) == cache_argument(lora) == "cache"
