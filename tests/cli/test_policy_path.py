"""``--policy hf:PATH`` with a folder that does not exist says so (no hub repo-id error)."""

import pytest
from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.models import load_model_and_tokenizer, resolve_model_path

runner = CliRunner()


@pytest.mark.parametrize("path", ["/nonexistent/path", "./runs/nope/final", "runs/nope/train/final",
                                  "~/no-such-model-folder"])
def test_a_missing_local_folder_is_named(path):
    pytest.importorskip("transformers")
    with pytest.raises(FileNotFoundError, match="no such model folder"):
        load_model_and_tokenizer(path)


def test_eval_with_a_missing_folder_is_one_clear_line(tmp_path):
    missing = tmp_path / "train" / "final"
    result = runner.invoke(app, ["eval", "arith", "--policy", f"hf:{missing}", "-n", "1"],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert f"no such model folder: {missing}" in result.output, result.output
    assert "Repo id" not in result.output and "Traceback" not in result.output


def test_hub_ids_and_aliases_are_left_to_their_resolvers():
    assert str(resolve_model_path("HuggingFaceTB/SmolLM2-135M")) == "HuggingFaceTB/SmolLM2-135M"
