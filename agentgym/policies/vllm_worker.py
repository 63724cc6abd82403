"""The vLLM worker process: runs in vLLM's own virtual environment, speaks JSON to the policy.

Started by :class:`agentgym.policies.vllm_engine.VLLMPolicy` as
``<venv>/bin/python -P vllm_worker.py`` (``-P``: this folder is not put on ``sys.path``), it
imports nothing from agentgym, so the engine's environment needs only vLLM. It connects back to
the policy's Unix socket (``AGENTGYM_VLLM_ADDRESS``, authenticated with the key read from the
first line of standard input) and answers messages, one JSON object each:

- ``{"op": "generate", "id": N, "prompt": [ids], "params": {...}}`` -> ``{"id": N, "ok": true,
  "token_ids": [...], "logprobs": [...], "text": "...", "finish_reason": "stop"|"length"}``.
  Every generate waiting at once is run as one batch (``LLM.generate`` over all of them).
- ``{"op": "load_weights", "id": N, "folder": PATH}``: the running engine reloads its weights
  in place from ``PATH`` (``LLM.collective_rpc("reload_weights", weights_path=PATH)``), and the
  prefix cache is reset. The CPU backend's packed copy of a tied ``lm_head`` is rebuilt after
  that reload, which misses it (:func:`refresh_embedding_heads`).
- ``{"op": "close"}``: the worker exits.

The module also holds :class:`WorkerExtension`, for ``vllm serve``: started with
``--worker-extension-cls vllm_worker.WorkerExtension`` (this folder on ``PYTHONPATH``), the server
takes ``POST /collective_rpc {"method": "agentgym_refresh_heads"}``, which the trainer's weight
push sends after the server's own ``reload_weights`` (see ``agentgym/trainers/weight_sync.py``).

Only plain data crosses the socket (no pickle), so neither side can run code in the other.
"""

from __future__ import annotations

import json
import os
import sys
from multiprocessing.connection import Client
from typing import Any

MAX_BATCH = 256


def _sampling(vllm: Any, p: dict[str, Any]) -> Any:
    """A ``vllm.SamplingParams`` from the plain dict the policy sent."""
    return vllm.SamplingParams(
        max_tokens=int(p.get("max_tokens", 16)), temperature=float(p.get("temperature", 1.0)),
        top_p=float(p.get("top_p", 1.0)), top_k=int(p.get("top_k", 0)) or -1,
        seed=p.get("seed"), stop=list(p.get("stop") or []) or None,
        logprobs=0 if p.get("logprobs", True) else None,
        include_stop_str_in_output=False, skip_special_tokens=True,
    )


def refresh_embedding_heads(model: Any) -> int:
    """Rebuild the compute weight of every embedding-shaped layer from its live weight; the count.

    On the CPU backend ``UnquantizedEmbeddingMethod.process_weights_after_loading`` gives a layer
    a ``cpu_linear`` that multiplies by a packed copy of the weight (oneDNN or sgl-kernel), made
    once. vLLM's layer-wise ``reload_weights`` re-runs that step only for layers that load a
    tensor: a tied ``lm_head`` (SmolLM2, ``tie_word_embeddings``) loads none, gets its old
    Parameter back (which shares storage with ``embed_tokens`` and so holds the new values) and
    keeps the packed copy of the old embedding, so the logits came from the old head. Re-running
    the step is idempotent for these layers (they keep their weight: ``remove_weight=False``).
    """
    from vllm.model_executor.layers.vocab_parallel_embedding import UnquantizedEmbeddingMethod

    count = 0
    for module in model.modules():
        method = getattr(module, "quant_method", None)
        weight = getattr(module, "weight", None)
        if isinstance(method, UnquantizedEmbeddingMethod) and weight is not None \
                and not weight.is_meta:
            method.process_weights_after_loading(module)
            count += 1
    return count


class WorkerExtension:
    """Mixed into ``vllm serve``'s workers: the tied-head rebuild that a server reload misses.

    ``vllm serve MODEL --worker-extension-cls vllm_worker.WorkerExtension`` with this file's
    folder on ``PYTHONPATH`` (``VLLM_SERVER_DEV_MODE=1`` for ``/collective_rpc``). Its method is
    named so that it cannot clash with the worker's own attributes.
    """

    model_runner: Any

    def agentgym_refresh_heads(self) -> int:
        """Run :func:`refresh_embedding_heads` on this worker's model; the layer count."""
        return refresh_embedding_heads(self.model_runner.get_model())


def _load_weights(llm: Any, folder: str) -> int:
    """Reload the engine's weights in place from ``folder``'s safetensors; the file count.

    vLLM's own in-place reload (``Worker.reload_weights``) reads the checkpoint and runs the
    loader's post-processing again (the CPU backend repacks linear weights after loading, so a
    plain ``model.load_weights`` into the live model cannot work); then the tied head is rebuilt
    (:func:`refresh_embedding_heads`), which that reload misses.
    """
    from pathlib import Path

    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"no *.safetensors in {folder}")
    llm.collective_rpc("reload_weights", kwargs={"weights_path": str(folder)})
    llm.apply_model(refresh_embedding_heads)
    llm.reset_prefix_cache()
    return len(files)


def _answer(out: Any) -> dict[str, Any]:
    o = out.outputs[0]
    ids = [int(t) for t in o.token_ids]
    logprobs = None
    if o.logprobs:
        logprobs = [float(step[t].logprob) for step, t in zip(o.logprobs, ids, strict=True)]
    return {"ok": True, "token_ids": ids, "logprobs": logprobs, "text": o.text,
            "finish_reason": "length" if o.finish_reason == "length" else "stop"}


def serve(conn: Any, llm: Any, vllm: Any) -> None:
    """Answer messages until ``close`` or the policy goes away."""
    from vllm.inputs import TokensPrompt

    while True:
        try:
            batch = [json.loads(conn.recv_bytes())]
            while len(batch) < MAX_BATCH and conn.poll(0.002):
                batch.append(json.loads(conn.recv_bytes()))
        except (EOFError, OSError):
            return
        pending: list[dict[str, Any]] = []
        for msg in batch + [{"op": "_flush"}]:
            op = msg.get("op")
            if op == "generate":
                pending.append(msg)
                continue
            if pending:  # run the generates seen so far as one batch, in order
                try:
                    outs = llm.generate(
                        [TokensPrompt(prompt_token_ids=m["prompt"]) for m in pending],
                        [_sampling(vllm, m.get("params") or {}) for m in pending],
                        use_tqdm=False)
                    replies = [{"id": m["id"], **_answer(o)} for m, o in zip(pending, outs,
                                                                           strict=True)]
                except Exception as e:  # noqa: BLE001 - every failure goes back as a reply
                    replies = [{"id": m["id"], "ok": False, "error": f"{type(e).__name__}: {e}"}
                               for m in pending]
                for r in replies:
                    conn.send_bytes(json.dumps(r).encode())
                pending = []
            if op == "close":
                return
            if op == "load_weights":
                try:
                    reply = {"id": msg["id"], "ok": True,
                             "tensors": _load_weights(llm, str(msg["folder"]))}
                except Exception as e:  # noqa: BLE001
                    reply = {"id": msg["id"], "ok": False, "error": f"{type(e).__name__}: {e}"}
                conn.send_bytes(json.dumps(reply).encode())
            elif op not in ("generate", "_flush"):
                conn.send_bytes(json.dumps({"id": msg.get("id"), "ok": False,
                                            "error": f"unknown op {op!r}"}).encode())


def main() -> int:
    """Build the engine from ``AGENTGYM_VLLM_ARGS`` (JSON engine args) and serve the socket."""
    authkey = sys.stdin.buffer.readline().strip()
    address = os.environ["AGENTGYM_VLLM_ADDRESS"]
    conn = Client(address, family="AF_UNIX", authkey=authkey)
    try:
        import vllm

        args = json.loads(os.environ["AGENTGYM_VLLM_ARGS"])
        llm = vllm.LLM(**args)
    except Exception as e:  # noqa: BLE001 - the policy reports it as its start-up error
        conn.send_bytes(json.dumps({"op": "ready", "ok": False,
                                    "error": f"{type(e).__name__}: {e}"}).encode())
        return 1
    conn.send_bytes(json.dumps({"op": "ready", "ok": True,
                                "vllm": getattr(vllm, "__version__", "?")}).encode())
    serve(conn, llm, vllm)
    return 0


if __name__ == "__main__":  # vLLM's worker processes re-import __main__: keep the guard
    sys.exit(main())
