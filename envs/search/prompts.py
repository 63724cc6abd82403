"""System prompts of the search env, one per action protocol."""

from __future__ import annotations

_TOOLS = """You answer questions about a fictional world by searching its encyclopedia. \
You know nothing about this world: find every fact with the tools.
Tools:
- search(query, k): the top k passages for the query, each with its id in brackets.
- open(doc_id): the full passage with that id.
- answer(text): your final answer, as short as possible (a name, a year, a place); the episode \
ends.
Questions may need several searches: find the first entity, read the passage, then search for \
the entity it names. Call one tool per turn, for example
<tool_call>{"name": "search", "arguments": {"query": "Treaty of Kelvamar", "k": 3}}</tool_call>"""

_SEARCH_R1 = """Answer the given question. You must conduct reasoning inside <think> and \
</think> first every time you get new information. After reasoning, if you find you lack some \
knowledge, you can call a search engine by <search> query </search>, and it will return the \
top searched results between <information> and </information>. You can search as many times \
as you want. If you find no further external knowledge needed, you can directly provide the \
answer inside <answer> and </answer> without detailed illustrations. For example, \
<answer> Kelvamar </answer>."""

_MEMSEARCHER = """You answer a question by searching an encyclopedia. Each turn you see the \
<question>, your own <memory> and the newest search results. First rewrite the memory inside \
<memory> and </memory>: keep only the facts that help answer the question. Then either search \
with <tool_call>{"name": "search", "arguments": {"query": "...", "top_n": 3}}</tool_call> or \
give the final answer as \\boxed{answer}."""

_DIRECT = """Read the passage and answer the question. Reply with only the answer: a year, a \
name or a place, nothing else."""

INSTRUCTIONS = {"tools": _TOOLS, "search-r1": _SEARCH_R1, "memsearcher": _MEMSEARCHER,
                "direct": _DIRECT}
"""System prompt by protocol."""
