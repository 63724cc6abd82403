"""Bundled SQL data: ``dbs/<db_id>.sqlite``, ``tasks.jsonl`` and the builder that makes them."""
