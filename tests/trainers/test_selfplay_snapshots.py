"""Self-play's frozen checkpoints are cheap: weights stored in bf16 (half the bytes of the fp32
policy), played with those weights upcast to fp32, and released when they leave the pool."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from agentgym.policies import FakeTokenizer, SamplingParams  # noqa: E402
from agentgym.policies.hf import HFPolicy  # noqa: E402
from agentgym.trainers.modeling import compact_copy  # noqa: E402

PROMPTS = [list(b"x to move: 1 2 3"), list(b"o to move"), list(b"a longer board 4 5 6 7 8 9")]


def tiny_model() -> Any:
    """A 2-layer Llama with tied embeddings over the fake tokenizer's 259 ids (seeded)."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=259, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        bos_token_id=256, eos_token_id=257, pad_token_id=258, tie_word_embeddings=True)
    return transformers.LlamaForCausalLM(config)


def weight_bytes(model: Any) -> int:
    """Bytes of the model's distinct parameters (tied ones once)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def rounded_fp32(model: Any) -> Any:
    """An fp32 copy of ``model`` whose weights are rounded to bf16: what a snapshot plays."""
    ref = copy.deepcopy(model).eval()
    with torch.no_grad():
        for p in ref.parameters():
            p.copy_(p.to(torch.bfloat16).float())
    return ref


async def _play(model: Any, sampling: SamplingParams) -> list[list[int]]:
    policy = HFPolicy(model, FakeTokenizer())
    try:
        gens = await asyncio.gather(*(
            policy.agenerate([], sampling=sampling.with_(seed=i), prompt_token_ids=p)
            for i, p in enumerate(PROMPTS)))
        return [g.token_ids for g in gens]
    finally:
        await policy.aclose()


def test_a_snapshot_takes_half_the_bytes_and_stays_frozen() -> None:
    live = tiny_model()
    snap = compact_copy(live)
    assert weight_bytes(snap) * 2 <= weight_bytes(live)
    assert all(not p.requires_grad for p in snap.parameters()) and not snap.training
    # tied weights stay tied (one stored tensor, not two)
    assert snap.lm_head.weight is snap.model.embed_tokens.weight
    before = [p.clone() for p in snap.parameters()]
    with torch.no_grad():  # the live policy moves on; the snapshot does not
        for p in live.parameters():
            p.add_(1.0)
    assert all(torch.equal(a, b) for a, b in zip(before, snap.parameters(), strict=True))
    # after a forward, the stored bf16 weights are back (the fp32 copies were transient)
    snap(torch.tensor([PROMPTS[0]]))
    assert {p.dtype for p in snap.parameters()} == {torch.bfloat16}
    assert weight_bytes(snap) * 2 <= weight_bytes(live)


def test_a_snapshot_plays_with_its_own_weights_in_fp32() -> None:
    live = tiny_model().eval()
    snap = compact_copy(live)
    ref = rounded_fp32(live)
    ids = torch.tensor([PROMPTS[2]])
    with torch.no_grad():
        got = snap(ids).logits
        want = ref(ids).logits
        full = live(ids).logits
    assert got.dtype == torch.float32  # computed in fp32, not bf16
    assert torch.allclose(got, want, atol=1e-6, rtol=0)
    assert torch.allclose(got, full, atol=5e-2)  # bf16 rounding moves logits a little only
    greedy = SamplingParams(max_tokens=6, temperature=0.0)
    sampled = SamplingParams(max_tokens=6, temperature=1.0)
    assert asyncio.run(_play(snap, greedy)) == asyncio.run(_play(ref, greedy))
    assert asyncio.run(_play(snap, sampled)) == asyncio.run(_play(ref, sampled))


def test_a_bf16_model_is_cloned_as_it_is() -> None:
    live = tiny_model().to(torch.bfloat16)
    snap = compact_copy(live)
    assert all(torch.equal(a, b) for a, b in zip(live.parameters(), snap.parameters(),
                                                 strict=True))
    assert all(a.data_ptr() != b.data_ptr() for a, b in zip(live.parameters(),
                                                            snap.parameters(), strict=True))
    ids = torch.tensor([PROMPTS[1]])
    with torch.no_grad():
        assert snap(ids).logits.dtype == torch.bfloat16  # no upcast hooks on a bf16 model


def test_a_checkpoint_leaving_the_pool_is_released_before_the_next(tiny_cfg) -> None:
    from agentgym.opponents import PolicyOpponent
    from agentgym.trainers import GRPOTrainer

    cfg = tiny_cfg("env=games/tictactoe-vs-scripted-v0", "steps=1", "opponent=pool",
                   "opponent_pool_every=1", "opponent_pool_size=2",
                   "eval_opponents=[scripted,start]", "save_every=0")
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    try:
        sp = trainer.selfplay
        assert sp is not None
        sizes: list[int] = []
        original = sp._snapshot

        def counting(name: str) -> PolicyOpponent:  # frozen copies alive when one is taken
            sizes.append(len(sp._frozen))
            return original(name)

        sp._snapshot = counting  # type: ignore[method-assign]
        for step in (1, 2, 3, 4):
            sp.after_step(step)
        assert sp.pool.names == ["scripted", "step-3", "step-4"]
        # at most one pool checkpoint stays while the next is taken (start waits on disk)
        assert sizes == [0, 1, 1, 1]
        assert len(sp._frozen) == 2  # step-3, step-4: steps 1 and 2 are released
        live = weight_bytes(trainer.model)
        assert all(weight_bytes(p.model) * 2 <= live for p in sp._frozen)
    finally:
        trainer.close()


def test_start_waits_on_disk_and_lives_only_through_an_evaluation(tiny_cfg) -> None:
    """``start`` takes no memory while the policy trains: its bf16 weights are in a private
    file, loaded for each evaluation (the weights before training, rounded to bf16) and released
    after it; the file goes with the trainer."""
    import os
    import stat

    from agentgym.trainers import GRPOTrainer

    cfg = tiny_cfg("env=games/tictactoe-vs-scripted-v0", "steps=1", "opponent=pool",
                   "eval_opponents=[scripted,start]", "save_every=0", "eval_tasks=2")
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    sp = trainer.selfplay
    assert sp is not None
    before = rounded_fp32(trainer.model)
    folder = sp._start_file.parent
    try:
        assert sp._frozen == []  # nothing in memory
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        with torch.no_grad():  # training moves the live weights away from start
            for p in trainer.model.parameters():
                p.add_(0.5)
        start = sp.load_start()
        try:
            for a, b in zip(start.policy.model.parameters(), before.parameters(), strict=True):
                torch.testing.assert_close(a.float(), b, rtol=0, atol=0)
        finally:
            sp._release(start)
        assert sp._frozen == []
        row = sp.evaluate(trainer.eval_ids[:2])
        assert row["games_start"] == 2.0 and "winrate_start" in row
        assert sp._frozen == [] and "start" not in sp._engines  # released after the evaluation
    finally:
        trainer.close()
    assert not folder.exists()
