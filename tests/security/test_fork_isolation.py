"""Attacks on forks: a branch tries to reach its sibling's or parent's state and database."""

from __future__ import annotations

import json

import agentgym


def _call(tool, **arguments):
    return f'<tool_call>{{"name": "{tool}", "arguments": {json.dumps(arguments)}}}</tool_call>'


def test_a_sql_branch_cannot_change_the_database_its_siblings_read():
    env = agentgym.make("sql")
    env.reset(seed=0)
    count = "SELECT count(*) FROM sqlite_master"
    before, *_ = env.step(_call("execute_sql", query=count))
    a, b = env.fork(2)
    for attack in ("CREATE TABLE planted(x)", "DROP TABLE IF EXISTS planted",
                   "ATTACH DATABASE '/tmp/agentgym-fork-attack.db' AS other",
                   "PRAGMA writable_schema = 1"):
        obs, *_ = a.step(_call("execute_sql", query=attack))
        assert "error" in obs["text"].lower() or "not allowed" in obs["text"].lower(), attack
    after, *_ = b.step(_call("execute_sql", query=count))
    assert after["text"] == before["text"]  # the sibling sees the database unchanged


def test_a_branch_reaches_nothing_of_its_parent_through_its_tools_or_state():
    env = agentgym.make("shop/price-v0")
    env.reset(seed=1)
    item = env.unwrapped.task.data["item"]
    (branch,) = env.fork(1)
    branch.step(_call("lookup", item=item))  # the branch's tools act on the branch
    assert item in branch.unwrapped.looked_up and not env.unwrapped.looked_up
    assert all(getattr(t.function, "__self__", branch.unwrapped) is branch.unwrapped
               for t in branch.unwrapped.tools)
    branch.unwrapped.task.data["prices"][item] = 10**6  # tampering with its own task copy...
    obs, *_ = env.step(_call("lookup", item=item))
    assert str(10**6) not in obs["text"]  # ...never reaches the parent's task
