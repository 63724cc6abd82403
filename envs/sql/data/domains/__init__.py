"""One module per database domain, each with ``DB_ID``, ``SCHEMA``, ``populate``, ``TEMPLATES``."""

from __future__ import annotations

from types import ModuleType

from . import bank, clinic, flights, hr, library, movies, school, store

__all__ = ["DOMAINS"]

DOMAINS: tuple[ModuleType, ...] = (store, hr, flights, school, library, clinic, movies, bank)
"""Every domain, in build order."""
