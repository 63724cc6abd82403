"""WebArena's ``func:`` evaluation helpers, parsed safely and run against the task's sites.

The official task files name helpers in ``program_html`` items, as Python source that WebArena
``eval``s (``func:shopping_get_latest_order_url()``,
``func:gitlab_get_project_memeber_role(__page__, 'name')``). Here the source is parsed with
:mod:`ast` into a name and string arguments (anything else is an error, nothing is evaluated) and
dispatched to this module's implementations of WebArena-Lite's ``helper_functions.py``:

- URL helpers: ``shopping_get_latest_order_url()`` (the shop's REST API, signed in with the
  published ``shopping_site_admin`` account, newest order by ``created_at``) and
  ``reddit_get_post_url(url)`` (the post a comment URL belongs to).
- Locator helpers: ``gitlab_get_project_memeber_role(__page__, account)`` (a script run on the
  members page) and ``shopping_get_sku_latest_review_author(sku)`` /
  ``shopping_get_sku_latest_review_rating(sku)`` (the REST API; the value itself).

A helper that is not implemented raises :class:`EvalSpecError`, which fails the episode's score
closed; a site lookup that fails raises :class:`~agentgym.errors.InfrastructureError` (the
reference cannot be computed: the episode is aborted, not scored).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from agentgym.errors import InfrastructureError

SITE_ADMIN = ("admin", "admin1234")
"""WebArena's published ``shopping_site_admin`` account (the REST API's admin)."""


class EvalSpecError(ValueError):
    """A task's check that this evaluator cannot run: it scores 0 with this reason."""


def parse_call(source: str) -> tuple[str, list[str]]:
    """``"name('a', __page__)"`` -> ``("name", ["a", "__page__"])``; anything but a call of a
    plain name with string literals or ``__page__``/``__last_url__`` is refused."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError as e:
        raise EvalSpecError(f"helper call not understood: {source[:80]!r}") from e
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.keywords:
        raise EvalSpecError(f"helper call not understood: {source[:80]!r}")
    args: list[str] = []
    for arg in node.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            args.append(arg.value)
        elif isinstance(arg, ast.Name) and arg.id in ("__page__", "__last_url__"):
            args.append(arg.id)
        else:
            raise EvalSpecError(f"helper argument not understood: {source[:80]!r}")
    return node.func.id, args


@dataclass
class LocatorValue:
    """What a locator helper gives: a ``script`` to run on the page, or the ``value`` itself."""

    kind: str
    text: str


MEMBER_ROLE_JS = """() => {
  const accounts = document.querySelectorAll(
    "td[data-label='Account'] span.gl-avatar-labeled-sublabel");
  let index = -1;
  for (let i = 0; i < accounts.length; i++) {
    if (accounts[i].outerText === %s) { index = i; break; }
  }
  const roles = document.querySelectorAll("td.col-max-role span");
  return index >= 0 && roles[index] ? roles[index].outerText : "";
}"""


def reddit_get_post_url(url: str) -> str:
    """``http://host/f/forum/123/slug/-/comment/9`` -> ``http://host/f/forum/123/``; any other
    URL is returned as it is (WebArena's helper)."""
    parts = urlsplit(url)
    path = parts.path.split("/")
    if len(path) < 4 or path[1] != "f":
        return url
    return f"{parts.scheme}://{parts.netloc}/f/{path[2]}/{path[3]}/"


class SiteHelpers:
    """The helpers, bound to the task's site URLs (``{"shopping": "http://host:7770"}``)."""

    def __init__(self, sites: dict[str, str], client: httpx.AsyncClient | None = None,
                 admin: tuple[str, str] = SITE_ADMIN) -> None:
        self.sites = {k: v.rstrip("/") for k, v in sites.items()}
        self.client = client
        self.admin = admin

    async def url(self, name: str, args: list[str], last_url: str) -> str:
        """The URL a ``program_html`` item names with ``func:``."""
        args = [last_url if a == "__last_url__" else a for a in args]
        if name == "shopping_get_latest_order_url" and not args:
            return await self._latest_order_url()
        if name == "reddit_get_post_url" and len(args) == 1:
            return reddit_get_post_url(args[0])
        raise EvalSpecError(f"url helper {name}({', '.join(args)}) is not implemented")

    async def locator(self, name: str, args: list[str]) -> LocatorValue:
        """What a ``func:`` locator selects: a script for the page or the value."""
        if name == "gitlab_get_project_memeber_role" and len(args) == 2 \
                and args[0] == "__page__":
            return LocatorValue("script", MEMBER_ROLE_JS % json.dumps(f"@{args[1]}"))
        if name in ("shopping_get_sku_latest_review_author",
                    "shopping_get_sku_latest_review_rating") and len(args) == 1:
            reviews = await self._shop_api("GET", f"/rest/V1/products/{args[0]}/reviews")
            if not isinstance(reviews, list):
                raise EvalSpecError(f"{name}: the shop answered {str(reviews)[:80]!r}")
            if not reviews:
                return LocatorValue("value", "")
            last = reviews[-1]
            if name.endswith("author"):
                return LocatorValue("value", str(last.get("nickname", "")))
            return LocatorValue("value", str(last["ratings"][0]["percent"]))
        raise EvalSpecError(f"locator helper {name}({', '.join(args)}) is not implemented")

    async def _latest_order_url(self) -> str:
        params = {"searchCriteria[sortOrders][0][field]": "created_at",
                  "searchCriteria[sortOrders][0][direction]": "DESC",
                  "searchCriteria[pageSize]": "1"}
        orders = await self._shop_api("GET", "/rest/V1/orders", params=params)
        try:
            order_id = int(orders["items"][0]["increment_id"])
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise EvalSpecError(f"shopping_get_latest_order_url: no order in "
                                f"{str(orders)[:80]!r}") from e
        return f"{self.sites['shopping']}/sales/order/view/order_id/{order_id}/"

    async def _shop_api(self, method: str, path: str, **kwargs: Any) -> Any:
        base = self.sites.get("shopping")
        if not base:
            raise EvalSpecError("the shopping helpers need the shopping site's URL")
        client = self.client or httpx.AsyncClient(timeout=30)
        try:
            token = await client.post(
                f"{base}/rest/default/V1/integration/admin/token",
                json={"username": self.admin[0], "password": self.admin[1]})
            token.raise_for_status()
            resp = await client.request(method, f"{base}{path}", headers={
                "Authorization": f"Bearer {token.json()}"}, **kwargs)
            resp.raise_for_status()
            return resp.json()
        except (httpx.HTTPError, ValueError) as e:
            raise InfrastructureError(f"the shop's REST API failed ({path}): {e}") from e
        finally:
            if self.client is None:
                await client.aclose()
