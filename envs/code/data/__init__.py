"""Bundled task data for the code environment (``tasks.jsonl``, built by ``build.py``)."""
