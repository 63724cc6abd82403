"""The plugin's own tests, written the way a third-party author writes them."""

import agentgym


def test_envs_pass_the_agentgym_checker(agentgym_check_env):
    agentgym_check_env("textgames/guess-number-v0")
    agentgym_check_env("textgames/wordle-v0")


def test_rewards_pay_only_for_playing(agentgym_check_rewards):
    for env_id in ("textgames/guess-number-v0", "textgames/wordle-v0"):
        result = agentgym_check_rewards(env_id)
        assert result.passed and result.skipped  # the games' opt-outs are reported


def test_expert_solves_every_test_task():
    for env_id in ("guess-number", "wordle"):
        env = agentgym.make(env_id, split="test")
        for task in env.unwrapped.task_set:
            env.reset(options={"task_id": task.task_id})
            for action in env.unwrapped.expert_actions(task):
                _, reward, terminated, truncated, info = env.step(action)
            assert terminated and info["success"] and reward == 1.0, task.task_id


def test_wordle_feedback_and_out_of_guesses():
    from agentgym_textgames.games import task_for_answer

    env = agentgym.make("wordle")
    env.reset(options={"task_id": task_for_answer(env.unwrapped.task_set, "answer",
                                                  "crane").task_id})
    obs, *_ = env.step('<tool_call>{"name": "guess", "arguments": {"word": "react"}}</tool_call>')
    assert obs["text"].startswith("YYGY.")
    for _ in range(5):
        obs, reward, terminated, *_ = env.step(
            '<tool_call>{"name": "guess", "arguments": {"word": "piano"}}</tool_call>'
        )
    assert terminated and reward == 0.0 and "the word was crane" in obs["text"]


def test_guess_out_of_range_is_an_error_observation():
    env = agentgym.make("guess-number")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        '<tool_call>{"name": "guess", "arguments": {"number": 500}}</tool_call>'
    )
    assert "between 1 and 100" in obs["text"] and not terminated and "error" in info


def test_task_ids_do_not_give_away_the_answers():
    from agentgym_textgames.games import guess_number_tasks, wordle_tasks

    guesses = list(guess_number_tasks())
    assert sum(t.task_id == f"guess-{t.data['target']:03d}" for t in guesses) <= 5
    words = list(wordle_tasks())
    assert not any(t.data["answer"] in t.task_id for t in words)
    assert len({t.task_id for t in words}) == len(words)
    assert sum(t.split == "test" for t in guesses) == 20  # the split sizes are unchanged
