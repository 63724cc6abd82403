"""The plugin module named by the ``agentgym`` entry point: registers the games."""

from __future__ import annotations

from agentgym import hookimpl


@hookimpl
def agentgym_register_envs(register):  # type: ignore[no-untyped-def]
    """Register guess-number and wordle."""
    register(
        "textgames/guess-number-v0",
        "agentgym_textgames.games:GuessNumberEnv",
        family="game",
        aliases=("guess-number",),
        max_turns=12,
        tasks="agentgym_textgames.games:guess_number_tasks",
        description="Find a hidden number from 1 to 100 with higher/lower hints.",
    )
    register(
        "textgames/wordle-v0",
        "agentgym_textgames.games:WordleEnv",
        family="game",
        aliases=("wordle",),
        max_turns=7,
        tasks="agentgym_textgames.games:wordle_tasks",
        description="Guess a five-letter word in six tries with per-letter feedback.",
    )


@hookimpl
def agentgym_register_rewards(register):  # type: ignore[no-untyped-def]
    """Register the games' scoring rule, usable by name."""
    register("textgames.fewer-guesses", "agentgym_textgames.games:fewer_guesses_reward")
