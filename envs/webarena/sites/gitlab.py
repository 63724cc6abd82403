"""The code-hosting site (``__GITLAB__``): projects, issues with labels and comments, merge
requests, members and labels, commits, and my personal pages. Writing needs the login.

This module is the site's URL map; the pages are in :mod:`.gitlab_projects`,
:mod:`.gitlab_issues` and :mod:`.gitlab_account`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from .common import Site, build_app
from .gitlab_account import account_pages
from .gitlab_issues import ISSUE_SORTS, issue_pages
from .gitlab_projects import PROJECT_SORTS, SSH_HOST, TODAY, project_pages, ssh_clone_url
from .state import SessionStore


def make_app(store: SessionStore) -> Starlette:
    """The code-hosting app over ``store``."""
    site = Site("gitlab", "GitLab", store, nav=[
        ("/explore", "Projects"), ("/dashboard/merge_requests", "Your merge requests"),
        ("/dashboard/todos", "To-Do List"), ("/-/profile", "Edit profile")],
                search=("/explore", "Search projects"))
    p = {**project_pages(site), **issue_pages(site), **account_pages(site)}
    pre = "/{ns}/{proj}"  # after every other one-or-two-segment path: it matches them all
    return build_app(site, [
        Route("/", p["explore"]), Route("/explore", p["explore"]),
        Route("/users/{username}", p["user_page"]),
        Route("/dashboard/merge_requests", p["my_merge_requests"]),
        Route("/dashboard/todos", p["todos"]),
        Route("/-/profile", p["profile"], methods=["GET", "POST"]),
        Route("/-/profile/personal_access_tokens", p["tokens"]),
        Route(f"{pre}/-/commits", p["commits"]), Route(f"{pre}/-/graphs/main", p["contributors"]),
        Route(pre, p["project_page"]), Route(f"{pre}/star", p["star"], methods=["POST"]),
        Route(f"{pre}/-/issues", p["issues"]),
        Route(f"{pre}/-/issues/new", p["new_issue"], methods=["GET", "POST"]),
        Route(f"{pre}/-/issues/{{iid}}", p["issue"]),
        Route(f"{pre}/-/issues/{{iid}}/{{action}}", p["issue_action"], methods=["POST"]),
        Route(f"{pre}/-/merge_requests", p["merge_requests"]),
        Route(f"{pre}/-/merge_requests/{{iid}}", p["merge_request"]),
        Route(f"{pre}/-/project_members", p["members"], methods=["GET", "POST"]),
        Route(f"{pre}/-/labels", p["labels"], methods=["GET", "POST"]),
    ])


__all__ = ["ISSUE_SORTS", "PROJECT_SORTS", "SSH_HOST", "TODAY", "make_app", "ssh_clone_url"]
