"""Which recorded expert episodes behaviour cloning keeps (``expert_failures``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from agentgym import ConfigError
from agentgym.trainers import load_config
from agentgym.trainers.bc import experts_for
from agentgym.trainers.distributed import DistInfo


def _trainer(tmp_path: Path, *overrides: str) -> SimpleNamespace:
    cfg = load_config(None, ["env=games/tictactoe-vs-scripted-v0",
                             "env_kwargs={opponent: scripted}",  # the scripted player vs itself
                             f"output_dir={tmp_path}", *overrides])
    return SimpleNamespace(cfg=cfg, dist=DistInfo(), tokenizer=None)


def test_draws_of_the_scripted_player_against_itself_are_kept_on_request(tmp_path: Path) -> None:
    with_failures = experts_for(_trainer(tmp_path, "expert_failures=true"), "", "train")
    wins = {i for i, e in with_failures.items() if e.success}
    draws = [e for e in with_failures.values() if not e.success]
    assert len(with_failures) == 62 and draws  # every train opening, most of them drawn
    assert all(len(e.steps) >= 2 for e in draws)  # whole games: blocks included
    try:  # the same recording, successes only (the default)
        kept = set(experts_for(_trainer(tmp_path), "", "train"))
    except ConfigError:  # no opening is won against a perfect blocker
        kept = set()
    assert kept == wins

