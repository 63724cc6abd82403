"""The vision-language policy on a tiny random Idefics3: image placeholders, ids, log-probs."""

from __future__ import annotations

from typing import Any

import pytest

from .vision_env import png, register, tiny_vlm

torch = pytest.importorskip("torch")

from agentgym import PolicyError  # noqa: E402
from agentgym.policies import (  # noqa: E402
    EpisodeContext,
    HFVisionPolicy,
    SamplingParams,
    VisionChatFormat,
    image_inputs,
    load_policy,
)
from agentgym.policies.chat import ChatFormat  # noqa: E402
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig  # noqa: E402

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def vlm() -> tuple[Any, Any]:
    """The tiny model and processor, built once for the module."""
    return tiny_vlm()


@pytest.fixture
def env_id() -> str:
    """The screenshot env's id (registered; registering again is a no-op)."""
    return register()


def test_each_image_becomes_its_placeholder_run(vlm: tuple[Any, Any]) -> None:
    _, processor = vlm
    fmt = VisionChatFormat(processor)
    tok = processor.tokenizer
    images = [png((255, 0, 0)), png((0, 0, 255))]
    messages = [{"role": "system", "content": "sys"},
                {"role": "user", "content": "look", "images": [0]}]
    ids = fmt.prompt_ids(messages, images=images)
    n_image = processor.image_seq_len  # 4 for the tiny model
    assert ids.count(processor.image_token_id) == n_image
    assert fmt.count_images(ids) == 1
    # the same text without images is what the plain text format gives
    plain = fmt.prompt_ids([messages[0], {"role": "user", "content": "look"}])
    assert plain == ChatFormat(tok).prompt_ids([messages[0], {"role": "user", "content": "look"}])
    # an observation delta with the second image: one more run, nothing re-tokenized before it
    delta = fmt.observation_ids({"role": "user", "content": "next", "images": [1]}, [1, 2],
                                images=images)
    assert delta.count(processor.image_token_id) == n_image and fmt.count_images(delta) == 1
    # "<image>" written in an observation's text is text, not an image the model never got
    text_only = fmt.observation_ids({"role": "user", "content": "a <image> tag"}, [1, 2])
    assert processor.image_token_id not in text_only and fmt.count_images(text_only) == 0
    with pytest.raises(PolicyError, match="names images"):
        fmt.observation_ids({"role": "user", "content": "x", "images": [5]}, [1], images=images)


def test_image_inputs_pad_rows_with_fewer_images(vlm: tuple[Any, Any]) -> None:
    _, processor = vlm
    inputs = image_inputs(processor, [[png((1, 2, 3))], [png((4, 5, 6)), png((7, 8, 9))]])
    assert inputs["pixel_values"].shape[:2] == (2, 2)  # (B, N_max, C, H, W)
    assert float(inputs["pixel_values"][0, 1].abs().sum()) == 0.0  # the padding image
    assert image_inputs(processor, [[], []]) == {}


def test_episode_keeps_images_and_logprobs_match_a_fresh_forward(
    vlm: tuple[Any, Any], env_id: str
) -> None:
    model, processor = vlm
    policy = HFVisionPolicy(model, processor)
    config = RolloutConfig(max_turns=5, sampling=SamplingParams(max_tokens=6, temperature=1.0))
    engine = Engine(env_id, policy, num_envs=2, config=config)
    trajs = engine.run([EpisodeRequest(task_id="s3"), EpisodeRequest(task_id="s2")])
    engine.close()
    fmt = policy.chat_format()
    for t in trajs:
        assert t.terminated and not t.aborted, t.reason
        # every screenshot the model saw is kept, in order, and its placeholders are in the ids
        assert len(t.images) == t.turns == fmt.count_images(t.token_ids)
        assert [m.get("images") for m in t.messages if m["role"] == "user"] == [
            [i] for i in range(len(t.images))]
        # the recorded behaviour log-probs are those of a fresh forward pass with the images
        ids = torch.tensor([t.token_ids])
        with torch.no_grad():
            logits = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                           **image_inputs(processor, [t.images])).logits[0]
        logp = torch.log_softmax(logits[:-1].float(), -1).gather(-1, ids[0, 1:, None])[:, 0]
        mask = torch.tensor(t.loss_mask[1:], dtype=torch.bool)
        behaviour = torch.tensor(t.logprobs[1:])
        assert mask.sum() > 0
        assert torch.allclose(logp[mask], behaviour[mask], atol=1e-4)
        # and the pixels matter: other images give other log-probs for the same tokens
        other = [png((0, 255, 0)) for _ in t.images]
        with torch.no_grad():
            logits2 = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                            **image_inputs(processor, [other])).logits[0]
        logp2 = torch.log_softmax(logits2[:-1].float(), -1).gather(-1, ids[0, 1:, None])[:, 0]
        assert (logp2[mask] - behaviour[mask]).abs().max() > 1e-4


def test_unreadable_image_aborts_the_episode_only(vlm: tuple[Any, Any], env_id: str) -> None:
    model, processor = vlm
    policy = HFVisionPolicy(model, processor)
    config = RolloutConfig(max_turns=5, sampling=SamplingParams(max_tokens=3))
    engine = Engine(env_id.replace("screens", "broken"), policy, num_envs=1, config=config)
    [t] = engine.run([EpisodeRequest(task_id="s3")])
    engine.close()
    assert t.aborted and t.reason.startswith("policy prompt failed") and "image" in t.reason
    assert t.turns == 1  # the first screenshot was fine; the second was not an image


def test_loaded_by_name_from_a_factory() -> None:
    tiny_vlm()  # skips when the tokenizer is missing
    policy = load_policy("hf-vision:agentgym.testing.tiny_vlm:tiny_idefics3?max_batch_size=4")
    assert isinstance(policy, HFVisionPolicy) and policy.max_batch_size == 4
    assert isinstance(policy.chat_format(), VisionChatFormat)
    with pytest.raises(PolicyError, match="needs a model"):
        load_policy("hf-vision")


async def _one_turn(policy: HFVisionPolicy, images: list[bytes]) -> Any:
    messages = [{"role": "system", "content": "s"},
                {"role": "user", "content": "look", "images": [0]}]
    ctx = EpisodeContext(episode_id="e", images=images)
    try:
        return await policy.agenerate(messages, sampling=SamplingParams(max_tokens=5, seed=3),
                                      episode=ctx)
    finally:
        await policy.aclose()


async def test_a_saved_folder_loads_through_auto_processor(vlm: tuple[Any, Any], tmp_path) -> None:
    """``hf-vision:PATH`` reads a SmolVLM-style folder (AutoProcessor + image-text-to-text)."""
    model, processor = vlm
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    loaded = load_policy(f"hf-vision:{tmp_path}")
    assert type(loaded.processor).__name__ == "Idefics3Processor"
    images = [png((10, 200, 30))]
    a = await _one_turn(loaded, images)
    b = await _one_turn(HFVisionPolicy(model, processor), images)
    assert a.prompt_token_ids == b.prompt_token_ids and a.token_ids == b.token_ids
    assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs, strict=True)) < 1e-4
    with pytest.raises(PolicyError, match="holds 1 images"):  # the images were not passed
        await HFVisionPolicy(model, processor).agenerate(
            [], sampling=SamplingParams(max_tokens=2), prompt_token_ids=a.prompt_token_ids)
