"""The terminal family: multi-turn shell envs over Harbor task folders (``terminal/*``,
``harbor:<folder>``), with bundled tasks under ``tasks/``. See docs/terminal.md."""
