"""Maps the top-level folders envs/, sandboxes/ and trainers/ to agentgym.envs, .sandboxes and
.trainers, so the folders stay visible while ``agentgym`` is the only import name installed.
Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

MAPPED = {
    "agentgym.envs": "envs",
    "agentgym.sandboxes": "sandboxes",
    "agentgym.trainers": "trainers",
}

packages = find_packages(include=["agentgym", "agentgym.*"])
for name, folder in MAPPED.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir={"agentgym": "agentgym", **MAPPED})
