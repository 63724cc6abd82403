"""A WebArena-Verified task's reference episode: the answer and network log its checks describe.

Runs inside the ``webarena-verified`` worker (:mod:`verified_worker`, its own environment): it
reads the package's task at run time and writes what a perfect agent would leave behind:

- the answer: the ``AgentResponseEvaluator``'s expected object, each value its first
  alternative, and a reference written as a pattern (``^#?\\s*0*170$``) replaced by the first
  string ``exrex`` generates for it;
- the network log (HAR entries, as a browser's recorder writes them): an opening navigation to
  the start URL, then one entry per ``NetworkEventEvaluator`` check (none for a
  ``should_not_exist`` one): the expected URL rendered on the configured sites with its query
  parameters, the method, form or JSON request body, request headers (a document navigation's
  ``sec-fetch-*`` ones for a GET), the status (a redirect gets a ``Location``), a JSON response
  body and the cookies where the check reads them.

Tests feed these to the package to show every task is scoreable, then break them (wrong values,
padded lists, mistyped strings, a missing request) to show each break scores 0.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

NAVIGATION_HEADERS = [
    {"name": "accept", "value": "text/html,application/xhtml+xml,*/*;q=0.8"},
    {"name": "sec-fetch-dest", "value": "document"},
    {"name": "sec-fetch-mode", "value": "navigate"},
    {"name": "sec-fetch-user", "value": "?1"},
]
"""The request headers of a user's navigation in Chromium (what the package calls navigation)."""


_ANY_RUN = re.compile(r"(?<!\\)\.[*+]")
_ANY_HOST = re.compile(r"^\^(?:https?://)?\.\*/")
_DOT = re.compile(r"(?<=\w)(?<!\\)\.(?=\w)")


def first(value: Any) -> Any:
    """The first alternative of a reference value (alternatives are lists)."""
    while isinstance(value, list) and value:
        value = value[0]
    return value


def unpattern(value: Any) -> Any:
    """A string matching ``value`` where it is a ``^...$`` pattern; other values as they are."""
    if isinstance(value, str) and len(value) > 1 and value.startswith("^") and value.endswith("$"):
        import exrex

        value = _ANY_RUN.sub("[a-z0-9]+", value)  # ".*" -> a word, not nothing or a space
        value = _DOT.sub(r"\\.", value)  # "a11yproject.com": the dot meant literally
        return next(iter(exrex.generate(value, limit=3)))
    return value


def reference_value(value: Any, schema: dict[str, Any] | None) -> Any:
    """The reference value as an agent would write it (first alternative, patterns filled)."""
    schema = schema or {}
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        return {k: reference_value(v, props.get(k)) for k, v in value.items()}
    if isinstance(value, list) and schema.get("type") == "array":
        return [reference_value(v, schema.get("items")) for v in value]
    return unpattern(first(value))


def reference_response(check: dict[str, Any]) -> dict[str, Any]:
    """The agent response an ``AgentResponseEvaluator`` check expects."""
    expected = {"retrieved_data": None, **(check.get("expected") or {})}
    data = expected.get("retrieved_data")
    if isinstance(data, list):
        schema = check.get("results_schema") or {}
        expected["retrieved_data"] = [reference_value(v, schema.get("items")) for v in data]
    return expected


_STEP = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]|\[\?\(@\.(\w+) == ([^)]*)\)\]")


def _steps(key: str) -> list[Any]:
    """A JSONPath key's steps: names, indexes and ``(field, value)`` filters."""
    if key.startswith("$.^") and key.endswith("$"):  # a key written as a pattern
        return [unpattern(key[2:])]
    if not key.startswith("$"):
        return [key]
    steps: list[Any] = []
    for m in _STEP.finditer(key, 1):
        name, index, quoted, field, value = m.groups()
        if index is not None:
            steps.append(int(index))
        elif field is not None:
            steps.append((field, json.loads(value)))
        else:
            steps.append(name if name is not None else quoted)
    return steps


def _put(node: Any, steps: list[Any], value: Any) -> None:
    """Set ``value`` at ``steps`` under ``node``, making the dicts and lists on the way."""
    step, rest = steps[0], steps[1:]
    if isinstance(step, tuple):  # a filter: the list's items that pass it, one per value
        values = value if not rest and isinstance(value, list) else [value]
        for one in values:
            item = {step[0]: step[1]}
            node.append(item)
            if rest:
                _put(item, rest, one)
        return
    if isinstance(step, int):
        while len(node) <= step:
            node.append(None)
    if not rest:
        node[step] = value
        return
    child = node[step] if isinstance(step, int) else node.get(step)
    if not isinstance(child, (dict, list)):
        child = [] if isinstance(rest[0], (int, tuple)) else {}
        node[step] = child
    if isinstance(rest[0], tuple) and isinstance(value, list):  # each value its own item
        for one in value:
            _put(child, rest, one)
        return
    _put(child, rest, value)


def _nested(flat: dict[str, Any]) -> dict[str, Any]:
    """``{"$.a[0].b": 1, "c": 2}`` -> ``{"a": [{"b": 1}], "c": 2}`` (JSONPath keys built)."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        _put(out, _steps(key), value)
    return out


def _values(fields: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any]:
    """Reference values of a body's fields: an array the schema types stays a list."""
    props = (schema or {}).get("properties") or {}
    out = {}
    for key, value in fields.items():
        if (props.get(key) or {}).get("type") == "array" and isinstance(value, list):
            out[key] = [unpattern(first(v)) for v in value]
        else:
            out[key] = unpattern(first(value))
    return out


def _url(check: dict[str, Any], render: Any, home: str) -> str:
    expected = check["expected"]
    template = first(expected["url"])
    if isinstance(template, str):  # any host (``^.*/``, ``^http://.*/``): the site's
        template = _ANY_HOST.sub(f"^{home}/", template)
    url = render(unpattern(template))
    params = {k: unpattern(first(v)) for k, v in (expected.get("query_params") or {}).items()}
    if not params:
        return url
    parts = urlsplit(url)
    if check.get("decode_base64_query"):  # Magento's filter: the query in a path segment
        segment = base64.urlsafe_b64encode(urlencode(params).encode()).decode().rstrip("=")
        return urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}/{segment}/"))
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit(parts._replace(query=query))


def network_entry(check: dict[str, Any], render: Any, home: str) -> dict[str, Any]:
    """The HAR entry a ``NetworkEventEvaluator`` check expects."""
    expected = check["expected"]
    method = str(expected.get("http_method") or "GET").upper()
    headers = list(NAVIGATION_HEADERS) if method == "GET" else [
        {"name": "accept", "value": "*/*"}]
    for name, value in (expected.get("headers") or {}).items():
        value = first(value)
        if name.lower() in ("referer", "redirect_url"):
            value = render(unpattern(value))
        headers.append({"name": name, "value": str(unpattern(value))})
    request: dict[str, Any] = {"method": method, "url": _url(check, render, home),
                               "headers": headers}
    post = expected.get("post_data")
    if post:
        values = _nested(_values(post, check.get("post_data_schema")))
        form = any("[" in k and not k.startswith("$") for k in post)  # PHP-style form names
        if not form and any(not isinstance(v, str) and v is not None for v in values.values()):
            request["postData"] = {"mimeType": "application/json",
                                   "text": json.dumps(values)}
        else:  # nested values as JSON strings; absent (None) fields left out
            fields = {k: v if isinstance(v, str) else json.dumps(v)
                      for k, v in values.items() if v is not None}
            request["postData"] = {"mimeType": "application/x-www-form-urlencoded",
                                   "text": urlencode(fields or {"form_key": "agentgym"})}
    status = int(first(expected.get("response_status")) or 200)
    response: dict[str, Any] = {"status": status, "headers": [], "cookies": [],
                                "redirectURL": ""}
    if 300 <= status < 400:
        response["redirectURL"] = request["url"]
        response["headers"].append({"name": "location", "value": request["url"]})
    content = expected.get("response_content")
    if content:
        body = _nested({k: unpattern(first(v)) for k, v in content.items()})
        response["content"] = {"mimeType": "application/json", "text": json.dumps(body)}
    for name, value in (expected.get("response_cookies") or {}).items():
        response["cookies"].append({"name": name, "value": str(unpattern(first(value)))})
    return {"request": request, "response": response}


def reference_episode(task: Any, config: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The reference answer and HAR entries of a package task under a package config."""
    raw = task.model_dump(mode="json")
    sites = task.sites

    def render(url: str) -> str:
        return str(config.render_url(url, sites, strict=False))

    response: dict[str, Any] = {}
    entries = []
    har = [{"request": {"method": "GET", "url": render(raw["start_urls"][0]),
                        "headers": list(NAVIGATION_HEADERS)},
            "response": {"status": 200, "headers": [], "cookies": [], "redirectURL": ""}}]
    for check in raw["eval"]:
        if check["evaluator"] == "AgentResponseEvaluator":
            response = reference_response(check)
        elif check["evaluator"] == "NetworkEventEvaluator" and not check.get("should_not_exist"):
            entries.append(network_entry(check, render, f"__{sites[0].upper()}__"))
    # a navigation task's GET checks read the last navigation: they come last
    entries.sort(key=lambda e: e["request"]["method"] == "GET")
    return response, har + entries
