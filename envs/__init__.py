"""Built-in environment families (``agentgym.envs``): SQL, code, and more.

Each family is a subpackage registered through :mod:`agentgym.envs.plugin`, the same hooks a
third-party plugin uses.
"""
