"""The public API: ``__all__`` is sorted and matches what the package exports."""

import __future__

import types

import agentgym


def test_all_is_sorted_and_exact():
    assert agentgym.__all__ == sorted(agentgym.__all__)
    public = {
        n
        for n in dir(agentgym)
        if not n.startswith("_")
        and not isinstance(getattr(agentgym, n), types.ModuleType)  # submodules
        and not isinstance(getattr(agentgym, n), __future__._Feature)  # `annotations`
    } | {"__version__"}
    assert set(agentgym.__all__) == public, (
        f"exported but not in __all__: {sorted(public - set(agentgym.__all__))}; "
        f"in __all__ but not exported: {sorted(set(agentgym.__all__) - public)}"
    )
    assert len(agentgym.__all__) == len(set(agentgym.__all__))


def test_every_public_object_has_a_docstring():
    for name in agentgym.__all__:
        obj = getattr(agentgym, name)
        if callable(obj) and not name.startswith("__"):
            assert obj.__doc__ and obj.__doc__.strip(), f"{name} has no docstring"
