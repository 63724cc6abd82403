"""The scripted expert: solves a question through the env's own actions.

For each hop it searches the entity that hop is about and opens the passage stating the fact
(the question's supporting passages), then answers with the gold answer; in the
``search-r1`` and ``memsearcher`` protocols the same plan is written in their text forms. It
reaches 100% on the generated questions because every hop's passage is opened by id; the
recall of the searches themselves is measured separately (``docs/search.md``).
"""

from __future__ import annotations

import json
from typing import Any

from agentgym import Task, ToolCall


def expert_actions(task: Task, protocol: str = "tools") -> list[Any]:
    """The actions that solve ``task`` in ``protocol``."""
    queries = list(task.data.get("queries") or [task.prompt])
    supporting = list(task.data.get("supporting") or [])
    gold = task.data["answers"][0]
    if protocol == "search-r1":
        steps: list[Any] = [f"<think>I need to look up {q}.</think>\n<search>{q}</search>"
                            for q in queries]
        return [*steps, f"<think>I have the facts.</think>\n<answer>{gold}</answer>"]
    if protocol == "memsearcher":
        actions: list[Any] = []
        for i, q in enumerate(queries):
            call = json.dumps({"name": "search", "arguments": {"query": q, "top_n": 5}})
            actions.append(f"<memory>Searched {i} of {len(queries)} entities.</memory>\n"
                           f"<tool_call>{call}</tool_call>")
        return [*actions, f"<memory>Found it.</memory>\n\\boxed{{{gold}}}"]
    actions = []
    for q, doc_id in zip(queries, supporting, strict=False):
        actions.append(ToolCall("search", {"query": q, "k": 3}))
        actions.append(ToolCall("open", {"doc_id": doc_id}))
    return [*actions, ToolCall("answer", {"text": gold})]
