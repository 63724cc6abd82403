"""``python -m agentgym.serve ENV --mcp|--http`` (the same as ``agentgym serve``)."""

from .run import main

if __name__ == "__main__":
    main()
