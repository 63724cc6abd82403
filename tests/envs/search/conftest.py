"""Shared fixtures: a small generated corpus (fast) and the bundled one (built once, cached)."""

from __future__ import annotations

import pytest

from agentgym.envs.search.corpus import Corpus, generate_corpus
from agentgym.envs.search.data import SearchData, generated_data
from agentgym.envs.search.questions import QAItem, generate_questions


@pytest.fixture(scope="session")
def small_corpus() -> Corpus:
    """12 clusters (about 540 passages)."""
    return generate_corpus(seed=5, n_clusters=12)


@pytest.fixture(scope="session")
def small_questions(small_corpus: Corpus) -> list[QAItem]:
    """Questions over the small corpus."""
    return generate_questions(small_corpus, seed=5)


@pytest.fixture(scope="session")
def bundled() -> SearchData:
    """The bundled encyclopedia and its questions (the envs' default data)."""
    return generated_data()
