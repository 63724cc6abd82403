"""Importers: other projects' envs as agentgym envs, one id scheme (``<source>:<name>``).

``reasoning-gym:<task>`` (:mod:`.rgym`), ``textarena:<game id>`` (:mod:`.textarena_env`) and
``openenv:<url>`` (:mod:`.openenv_env`) reach their resolvers (:mod:`.resolvers`) through the
``agentgym_register_resolvers`` hook of the built-in envs plugin; docs/interop.md maps each.
"""
