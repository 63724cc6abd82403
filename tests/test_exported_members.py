"""The public API: ``__all__`` is sorted and matches what the package exports."""

import agentgym


def test_all_is_sorted_and_complete():
    assert agentgym.__all__ == sorted(agentgym.__all__)
    public = {n for n in dir(agentgym) if not n.startswith("_") and n[0].isupper()}
    missing = public - set(agentgym.__all__)
    assert not missing, f"exported but not in __all__: {missing}"
    for name in agentgym.__all__:
        assert hasattr(agentgym, name), name


def test_every_public_object_has_a_docstring():
    for name in agentgym.__all__:
        obj = getattr(agentgym, name)
        if callable(obj) and not name.startswith("__"):
            assert obj.__doc__ and obj.__doc__.strip(), f"{name} has no docstring"
