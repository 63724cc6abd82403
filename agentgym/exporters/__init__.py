"""Exporters: agentgym's envs as other projects' env packages (``agentgym export``)."""

from __future__ import annotations

from .harbor import export_harbor
from .openenv import export_openenv

__all__ = ["export_harbor", "export_openenv"]
