"""Maps the top-level folders envs/, sandboxes/ and trainers/ to agentgym.envs, .sandboxes and
.trainers, so the folders stay visible while ``agentgym`` is the only import name installed.
Everything else is in pyproject.toml."""

from setuptools import find_namespace_packages, find_packages, setup

MAPPED = {
    "agentgym.envs": "envs",
    "agentgym.sandboxes": "sandboxes",
    "agentgym.trainers": "trainers",
}

packages = find_packages(include=["agentgym", "agentgym.*"])
for name, folder in MAPPED.items():
    # namespace packages too: data-only folders (envs/sql/data/dbs, envs/webarena/data,
    # envs/webarena/sites/templates) are packages whose package-data pyproject.toml declares
    subs = find_namespace_packages(folder, exclude=["*__pycache__*"])
    packages += [name] + [f"{name}.{sub}" for sub in subs]

setup(packages=packages, package_dir={"agentgym": "agentgym", **MAPPED})
