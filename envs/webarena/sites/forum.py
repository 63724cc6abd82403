"""The forum (``__REDDIT__``, Postmill-like): forums, posts sorted hot/new/top, comments, votes,
subscriptions, user pages and search. Writing needs the login.

This module is the site's URL map; the pages are in :mod:`.forum_listings` and
:mod:`.forum_posts`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from .common import Site, build_app
from .forum_listings import SORTS, listing_pages
from .forum_posts import NOW, post_pages
from .state import SessionStore


def make_app(store: SessionStore) -> Starlette:
    """The forum app over ``store``."""
    site = Site("reddit", "Postmill", store,
                nav=[("/forums", "Forums"), ("/submit", "Submit"), ("/profile", "Profile")],
                search=("/search", "Search posts"))
    p = {**listing_pages(site), **post_pages(site)}
    return build_app(site, [
        Route("/", p["home"]), Route("/forums", p["forums"]), Route("/search", p["search"]),
        Route("/submit", p["submit"], methods=["GET", "POST"]),
        Route("/profile", p["profile"], methods=["GET", "POST"]),
        Route("/user/{username}", p["user_page"]), Route("/f/{forum}", p["forum"]),
        Route("/f/{forum}/subscribe", p["subscribe"], methods=["POST"]),
        Route("/f/{forum}/{pid}", p["post"]),
        Route("/f/{forum}/{pid}/comment", p["comment"], methods=["POST"]),
        Route("/f/{forum}/{pid}/vote", p["vote"], methods=["POST"]),
    ])


__all__ = ["NOW", "SORTS", "make_app"]
