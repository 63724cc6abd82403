"""Every checkpoint a run writes loads as a policy (``hf:<run>/checkpoints/step-N`` and
``hf:<run>/final``), full fine-tuning and LoRA alike; a folder holding no model is refused in one
line naming what to pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.errors import PolicyError
from agentgym.policies.loader import load_policy

runner = CliRunner()


def _train(tiny_cfg, *overrides: str) -> Path:
    from agentgym.trainers import GRPOTrainer

    cfg = tiny_cfg("steps=2", "save_every=1", "keep_checkpoints=0", *overrides)
    trainer = GRPOTrainer(cfg)
    trainer.train()
    trainer.policy.close()
    return Path(cfg.output_dir)


def _expected(run: Path, step: int, lora: bool) -> dict[str, torch.Tensor]:
    """The base model with the checkpoint's weights, built here the trainer's way."""
    from safetensors.torch import load_file

    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    if lora:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, task_type="CAUSAL_LM",
                                                 target_modules=["q_proj", "v_proj"]))
    model.load_state_dict(load_file(str(run / "checkpoints" / f"step-{step:06d}" /
                                        "model.safetensors")), strict=False)
    if lora:
        model = model.merge_and_unload()
    return {k: v.detach() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
def test_each_checkpoint_loads_as_the_policy_it_was(tiny_cfg, lora):
    if lora:
        pytest.importorskip("peft")
    extra = ["lora=true", "lora_target_modules=[q_proj,v_proj]"] if lora else []
    run = _train(tiny_cfg, *extra)
    loaded = {}
    for step in (1, 2):
        policy = load_policy(f"hf:{run}/checkpoints/step-{step:06d}?device=cpu")
        try:
            loaded[step] = {k: v.detach().clone() for k, v in policy.model.state_dict().items()}
            assert policy.tokenizer is not None
        finally:
            policy.close()
        expected = _expected(run, step, lora)
        assert set(loaded[step]) == set(expected)
        for name, tensor in expected.items():
            torch.testing.assert_close(loaded[step][name], tensor, msg=name)
    changed = [k for k in loaded[1] if not torch.equal(loaded[1][k], loaded[2][k])]
    assert changed, "steps 1 and 2 loaded the same weights"
    # final/ (adapters only with LoRA; no tokenizer files for this entry-point base) loads too,
    # with the last step's weights
    policy = load_policy(f"hf:{run}/final?device=cpu")
    try:
        final = policy.model.state_dict()
        for name, tensor in loaded[2].items():
            torch.testing.assert_close(final[name], tensor, msg=name)
    finally:
        policy.close()


def test_a_checkpoint_evaluates_from_the_command_line(tiny_cfg):
    run = _train(tiny_cfg)
    result = runner.invoke(app, ["eval", "tinytest/digits-v0", "--policy",
                                 f"hf:{run}/checkpoints/step-000002?device=cpu", "-n", "2",
                                 "--max-new-tokens", "4"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "success rate" in result.output


def test_folders_without_a_model_are_refused_naming_what_to_pass(tiny_cfg, tmp_path):
    run = _train(tiny_cfg)
    newest = run / "checkpoints" / "step-000002"
    cases = {
        run: f"pass its final model (hf:{run / 'final'}) or a checkpoint (hf:{newest})",
        run / "checkpoints": f"pass one of them, e.g. hf:{newest}",
    }
    half = run / "checkpoints" / "step-000003.tmp"
    shutil.copytree(newest, half)
    (half / "COMPLETE").unlink()
    cases[half] = "incomplete checkpoint"
    moved = tmp_path / "elsewhere" / "step-000002"
    shutil.copytree(newest, moved)
    cases[moved] = "outside its run folder"
    for folder, words in cases.items():
        with pytest.raises(PolicyError) as caught:
            load_policy(f"hf:{folder}?device=cpu")
        assert words in str(caught.value) and "\n" not in str(caught.value)
    result = runner.invoke(app, ["eval", "tinytest/digits-v0", "--policy", f"hf:{run}", "-n", "1"],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 1 and "training run folder" in result.output
    assert "Traceback" not in result.output
