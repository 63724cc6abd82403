"""Fixtures registering the test envs of :mod:`.fake_envs`."""

from __future__ import annotations

from typing import Any

import pytest

import agentgym

from .fake_envs import RELEASE, CounterEnv, EchoProcessEnv, FaultyEnv, counter_tasks


@pytest.fixture(scope="session")
def counter_env() -> str:
    """Id of the registered counter env."""
    agentgym.register("testroll/counter-v0", CounterEnv, tasks=counter_tasks)
    return "testroll/counter-v0"


@pytest.fixture(scope="session")
def image_env() -> str:
    """Id of a counter env whose observations carry images."""
    agentgym.register("testroll/images-v0", CounterEnv, kwargs={"images": True})
    return "testroll/images-v0"


@pytest.fixture(scope="session")
def echo_env() -> str:
    """Id of the subprocess-backed env."""
    agentgym.register("testroll/echo-v0", EchoProcessEnv)
    return "testroll/echo-v0"


@pytest.fixture
def faulty_env() -> Any:
    """Id of the hanging/raising env; releases hung steps at teardown."""
    agentgym.register("testroll/faulty-v0", FaultyEnv)
    RELEASE.clear()
    yield "testroll/faulty-v0"
    RELEASE.set()
