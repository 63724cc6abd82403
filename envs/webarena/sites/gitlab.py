"""The code-hosting site (``__GITLAB__``): projects, issues with labels and comments, merge
requests, members and labels. Writing needs the login."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .common import (
    Site,
    build_app,
    form_choice,
    form_text,
    path_int,
    query_choice,
    query_text,
    read_form,
    redirect,
    require_user,
)
from .data_gitlab import ROLES
from .gitlab_more import more_routes, profile_facts
from .state import SessionStore
from .views import field, filter_links, form, link, pager, pager_view, sort_links, table

PROJECT_SORTS = {"name": "Name", "stars": "Most stars", "created": "Last created"}
_PROJECT_ORDER = {"name": "namespace, name", "stars": "stars DESC, id",
                  "created": "created DESC, id"}
ISSUE_SORTS = {"created_desc": "Created date (newest)", "created_asc": "Created date (oldest)"}
_ISSUE_ORDER = {"created_desc": "i.created DESC, i.iid DESC", "created_asc": "i.created, i.iid"}
TODAY = "2024-01-01"


SSH_HOST = "ssh://git@metis.lti.cs.cmu.edu:2222"
"""The SSH origin the project pages show in their clone URLs."""


def ssh_clone_url(project: Any) -> str:
    """``ssh://git@host:2222/namespace/name.git``."""
    return f"{SSH_HOST}/{project['namespace']}/{project['name']}.git"


def make_app(store: SessionStore) -> Starlette:
    """The code-hosting app over ``store``."""
    site = Site("gitlab", "GitLab", store, nav=[
        ("/explore", "Projects"), ("/dashboard/merge_requests", "Your merge requests"),
        ("/dashboard/todos", "To-Do List"), ("/-/profile", "Edit profile")],
                search=("/explore", "Search projects"))

    def me(conn: Any, request: Request) -> int:
        user = require_user(request, site.name)
        return int(conn.execute("SELECT id FROM users WHERE username = ?", (user,)).fetchone()[0])

    def project(conn: Any, request: Request) -> Any:
        p = conn.execute("SELECT * FROM projects WHERE namespace = ? AND name = ?",
                         (str(request.path_params["ns"]), str(request.path_params["proj"])))
        row = p.fetchone()
        if row is None:
            raise HTTPException(404, "project not found")
        return row

    def base(p: Any) -> str:
        return f"/{p['namespace']}/{p['name']}"

    async def explore(request: Request) -> Response:
        q = query_text(request, "q")
        sort = query_choice(request, "sort", tuple(PROJECT_SORTS))
        where, args = "(name LIKE ? OR description LIKE ?)", (f"%{q}%", f"%{q}%")
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM projects WHERE {where}", args).fetchone()[0]
            pg = pager(request, total)
            rows = conn.execute(f"SELECT * FROM projects WHERE {where} ORDER BY "
                                f"{_PROJECT_ORDER[sort]} LIMIT ? OFFSET ?",
                                (*args, pg.per_page, pg.offset)).fetchall()
        return site.render(request, "page.html", title="Explore projects", sections=[
            {"heading": "Sort", "links": sort_links(request, "sort", PROJECT_SORTS, sort)},
            {"heading": "Projects", "table": table(["Project", "Description", "Stars", "Language"],
                [[link(f"{r['namespace']} / {r['name']}", base(r)), r["description"], r["stars"],
                  r["language"]] for r in rows])}], pager=pager_view(request, pg))

    async def project_page(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            n_open = conn.execute("SELECT COUNT(*) FROM issues WHERE project_id = ? AND state = "
                                  "'opened'", (p["id"],)).fetchone()[0]
        b = base(p)
        return site.render(request, "page.html", title=f"{p['namespace']} / {p['name']}",
                           intro=p["description"], message=request.query_params.get("msg", "")[:80],
                           facts=[("Stars", p["stars"]), ("Forks", p["forks"]),
                                  ("Language", p["language"]), ("Created", p["created"]),
                                  ("Open issues", n_open),
                                  ("Clone with SSH", ssh_clone_url(p))], sections=[
            {"heading": "Project navigation", "links": [
                (f"{b}/-/issues", "Issues", False), (f"{b}/-/merge_requests", "Merge requests",
                                                     False),
                (f"{b}/-/project_members", "Members", False), (f"{b}/-/labels", "Labels", False),
                (f"{b}/-/commits", "Commits", False), (f"{b}/-/graphs/main", "Contributors",
                                                       False)]},
            {"heading": "Star", "forms": [form(f"{b}/star", "Star", [], id="star")]}])

    async def star(request: Request) -> Response:
        await read_form(request)
        with site.db(request) as conn:
            me(conn, request)
            p = project(conn, request)
            conn.execute("UPDATE projects SET stars = stars + 1 WHERE id = ?", (p["id"],))
        return redirect(f"{base(p)}?msg=You starred this project.")

    async def issues(request: Request) -> Response:
        state = query_choice(request, "state", ("opened", "closed", "all"))
        sort = query_choice(request, "sort", tuple(ISSUE_SORTS))
        label = query_text(request, "label_name", max_len=50)
        q = query_text(request, "search")
        with site.db(request) as conn:
            p = project(conn, request)
            where = "i.project_id = ? AND i.title LIKE ?"
            args: list[Any] = [p["id"], f"%{q}%"]
            if state != "all":
                where += " AND i.state = ?"
                args.append(state)
            if label:
                where += (" AND EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = "
                          "il.label_id WHERE il.issue_id = i.id AND l.name = ?)")
                args.append(label)
            total = conn.execute(f"SELECT COUNT(*) FROM issues i WHERE {where}",
                                 args).fetchone()[0]
            pg = pager(request, total)
            rows = conn.execute(
                "SELECT i.*, a.username AS author, s.username AS assignee, (SELECT "
                "group_concat(l.name, ', ') FROM issue_labels il JOIN labels l ON l.id = "
                "il.label_id WHERE il.issue_id = i.id) AS labels FROM issues i JOIN users a ON "
                f"a.id = i.author_id LEFT JOIN users s ON s.id = i.assignee_id WHERE {where} "
                f"ORDER BY {_ISSUE_ORDER[sort]} LIMIT ? OFFSET ?",
                (*args, pg.per_page, pg.offset)).fetchall()
        b = base(p)
        states = {"opened": "Open", "closed": "Closed", "all": "All"}
        return site.render(request, "page.html", title=f"Issues · {p['name']}",
                           intro=f"{total} issues", sections=[
            {"heading": "State", "links": filter_links(request, "state", states, state)},
            {"heading": "Sort", "links": sort_links(request, "sort", ISSUE_SORTS, sort)},
            {"heading": "Issues", "table": table(
                ["Issue", "Title", "Author", "Assignee", "Labels", "Created", "State"],
                [[f"#{r['iid']}", link(r["title"], f"{b}/-/issues/{r['iid']}"), r["author"],
                  r["assignee"] or "", r["labels"] or "", r["created"], r["state"]]
                 for r in rows])},
            {"heading": "New issue", "links": [(f"{b}/-/issues/new", "New issue", False)]}],
            pager=pager_view(request, pg))

    async def issue(request: Request) -> Response:
        iid = path_int(request, "iid")
        with site.db(request) as conn:
            p = project(conn, request)
            i = conn.execute("SELECT i.*, a.username AS author, s.username AS assignee FROM "
                             "issues i JOIN users a ON a.id = i.author_id LEFT JOIN users s ON "
                             "s.id = i.assignee_id WHERE project_id = ? AND iid = ?",
                             (p["id"], iid)).fetchone()
            if i is None:
                raise HTTPException(404, "issue not found")
            notes = conn.execute("SELECT n.*, u.username FROM notes n JOIN users u ON u.id = "
                                 "n.author_id WHERE issue_id = ? ORDER BY n.id",
                                 (i["id"],)).fetchall()
            labels = [r[0] for r in conn.execute(
                "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE "
                "il.issue_id = ? ORDER BY l.name", (i["id"],))]
            all_labels = [r[0] for r in conn.execute(
                "SELECT name FROM labels WHERE project_id = ? ORDER BY name", (p["id"],))]
            users = [r[0] for r in conn.execute("SELECT username FROM users ORDER BY username")]
        b = f"{base(p)}/-/issues/{iid}"
        toggle = "Close issue" if i["state"] == "opened" else "Reopen issue"
        return site.render(request, "page.html", title=i["title"], intro=i["body"],
                           message=request.query_params.get("msg", "")[:80], facts=[
            ("Issue", f"#{iid}"), ("Status", "Open" if i["state"] == "opened" else "Closed"),
            ("Author", i["author"]), ("Assignee", i["assignee"] or "None"),
            ("Labels", ", ".join(labels) or "None"), ("Created", i["created"])], sections=[
            {"heading": "Activity", "table": table(["Author", "Comment", "Date"], [
                [n["username"], n["body"], n["created"]] for n in notes])},
            {"heading": "Edit issue", "forms": [
                form(f"{b}/comment", "Comment", [field("body", "Add a comment", "textarea")],
                     id="note"),
                form(f"{b}/state", toggle, [], id="state"),
                form(f"{b}/assign", "Assign", [field("assignee", "Assignee", "select", "",
                                                     [(u, u) for u in users])], id="assign"),
                form(f"{b}/label", "Add label", [field("label", "Label", "select", "",
                                                       [(x, x) for x in all_labels])], id="lab")]}])

    async def issue_action(request: Request) -> Response:
        iid = path_int(request, "iid")
        action = str(request.path_params["action"])
        if action not in ("comment", "state", "assign", "label"):
            raise HTTPException(404, "no such page")
        f = await read_form(request)
        with site.db(request) as conn:
            uid = me(conn, request)
            p = project(conn, request)
            i = conn.execute("SELECT * FROM issues WHERE project_id = ? AND iid = ?",
                             (p["id"], iid)).fetchone()
            if i is None:
                raise HTTPException(404, "issue not found")
            if action == "comment":
                conn.execute("INSERT INTO notes (issue_id, author_id, body, created) VALUES "
                             "(?,?,?,?)", (i["id"], uid, form_text(f, "body", 5000), TODAY))
            elif action == "state":
                new = "closed" if i["state"] == "opened" else "opened"
                conn.execute("UPDATE issues SET state = ? WHERE id = ?", (new, i["id"]))
            elif action == "assign":
                users = tuple(r[0] for r in conn.execute("SELECT username FROM users"))
                name = form_choice(f, "assignee", users)
                conn.execute("UPDATE issues SET assignee_id = (SELECT id FROM users WHERE "
                             "username = ?) WHERE id = ?", (name, i["id"]))
            else:
                names = tuple(r[0] for r in conn.execute(
                    "SELECT name FROM labels WHERE project_id = ?", (p["id"],)))
                name = form_choice(f, "label", names)
                conn.execute("INSERT OR IGNORE INTO issue_labels SELECT ?, id FROM labels WHERE "
                             "project_id = ? AND name = ?", (i["id"], p["id"], name))
        return redirect(f"{base(p)}/-/issues/{iid}?msg=Saved.")

    async def new_issue(request: Request) -> Response:
        with site.db(request) as conn:
            uid = me(conn, request)
            p = project(conn, request)
            if request.method == "POST":
                f = await read_form(request)
                title = form_text(f, "title", 255)
                body = form_text(f, "description", 10000, required=False)
                iid = conn.execute("SELECT COALESCE(MAX(iid), 0) + 1 FROM issues WHERE "
                                   "project_id = ?", (p["id"],)).fetchone()[0]
                conn.execute("INSERT INTO issues (project_id, iid, title, body, state, author_id,"
                             " assignee_id, created) VALUES (?,?,?,?, 'opened', ?, NULL, ?)",
                             (p["id"], iid, title, body, uid, TODAY))
                return redirect(f"{base(p)}/-/issues/{iid}?msg=Issue created.")
        return site.render(request, "page.html", title="New Issue", sections=[
            {"heading": "New issue", "forms": [form(f"{base(p)}/-/issues/new", "Create issue", [
                field("title", "Title"), field("description", "Description", "textarea")],
                id="issue")]}])

    async def merge_requests(request: Request) -> Response:
        state = query_choice(request, "state", ("opened", "merged", "closed", "all"))
        with site.db(request) as conn:
            p = project(conn, request)
            where, args = "m.project_id = ?", [p["id"]]
            if state != "all":
                where += " AND m.state = ?"
                args.append(state)
            rows = conn.execute("SELECT m.*, u.username FROM merge_requests m JOIN users u ON "
                                f"u.id = m.author_id WHERE {where} ORDER BY m.iid DESC",
                                args).fetchall()
        b = base(p)
        states = {"opened": "Open", "merged": "Merged", "closed": "Closed", "all": "All"}
        return site.render(request, "page.html", title=f"Merge requests · {p['name']}", sections=[
            {"heading": "State", "links": filter_links(request, "state", states, state)},
            {"heading": "Merge requests", "table": table(
                ["MR", "Title", "Author", "Source branch", "Created", "State"],
                [[f"!{r['iid']}", link(r["title"], f"{b}/-/merge_requests/{r['iid']}"),
                  r["username"], r["source_branch"], r["created"], r["state"]] for r in rows])}])

    async def merge_request(request: Request) -> Response:
        iid = path_int(request, "iid")
        with site.db(request) as conn:
            p = project(conn, request)
            m = conn.execute("SELECT m.*, u.username FROM merge_requests m JOIN users u ON u.id ="
                             " m.author_id WHERE project_id = ? AND iid = ?",
                             (p["id"], iid)).fetchone()
        if m is None:
            raise HTTPException(404, "merge request not found")
        return site.render(request, "page.html", title=m["title"], facts=[
            ("Merge request", f"!{iid}"), ("State", m["state"]), ("Author", m["username"]),
            ("Source branch", m["source_branch"]), ("Target branch", m["target_branch"]),
            ("Created", m["created"])])

    async def members(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            if request.method == "POST":
                me(conn, request)
                f = await read_form(request)
                users = tuple(r[0] for r in conn.execute("SELECT username FROM users"))
                name, role = form_choice(f, "username", users), form_choice(f, "role", tuple(ROLES))
                conn.execute("INSERT OR REPLACE INTO members SELECT ?, id, ? FROM users WHERE "
                             "username = ?", (p["id"], role, name))
                return redirect(f"{base(p)}/-/project_members")
            rows = conn.execute("SELECT u.username, u.name, m.role FROM members m JOIN users u ON"
                                " u.id = m.user_id WHERE project_id = ? ORDER BY u.username",
                                (p["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Project members · {p['name']}", sections=[
            {"heading": "Members", "table": table(["Username", "Name", "Role"], [
                [link(r["username"], f"/users/{r['username']}"), r["name"], r["role"]]
                for r in rows])},
            {"heading": "Invite member", "forms": [form(f"{base(p)}/-/project_members", "Invite", [
                field("username", "Username"), field("role", "Role", "select", "Guest",
                                                     [(x, x) for x in ROLES])], id="invite")]}])

    async def labels(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            if request.method == "POST":
                me(conn, request)
                f = await read_form(request)
                name, color = form_text(f, "name", 50), form_text(f, "color", 7)
                if conn.execute("SELECT 1 FROM labels WHERE project_id = ? AND name = ?",
                                (p["id"], name)).fetchone():
                    raise HTTPException(409, "a label with this name exists")
                conn.execute("INSERT INTO labels (project_id, name, color) VALUES (?,?,?)",
                             (p["id"], name, color))
                return redirect(f"{base(p)}/-/labels")
            rows = conn.execute("SELECT l.*, (SELECT COUNT(*) FROM issue_labels il JOIN issues i "
                                "ON i.id = il.issue_id WHERE il.label_id = l.id AND i.state = "
                                "'opened') AS n FROM labels l WHERE project_id = ? ORDER BY name",
                                (p["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Labels · {p['name']}", sections=[
            {"heading": "Labels", "table": table(["Label", "Color", "Open issues"], [
                [link(r["name"], f"{base(p)}/-/issues?label_name={r['name']}"), r["color"],
                 r["n"]] for r in rows])},
            {"heading": "New label", "forms": [form(f"{base(p)}/-/labels", "Create label", [
                field("name", "Title"), field("color", "Background color", value="#428bca")],
                id="label")]}])

    async def user_page(request: Request) -> Response:
        name = str(request.path_params["username"])
        with site.db(request) as conn:
            u = conn.execute("SELECT * FROM users WHERE username = ?", (name,)).fetchone()
            if u is None:
                raise HTTPException(404, "user not found")
            rows = conn.execute("SELECT p.*, m.role FROM members m JOIN projects p ON p.id = "
                                "m.project_id WHERE m.user_id = ? ORDER BY p.name",
                                (u["id"],)).fetchall()
        return site.render(request, "page.html", title=u["name"],
                           message=request.query_params.get("msg", "")[:80],
                           facts=[("Username", name), *profile_facts(u)],
                           sections=[{"heading": "Projects", "table": table(["Project", "Role"], [
                               [link(f"{r['namespace']} / {r['name']}", base(r)), r["role"]]
                               for r in rows])}])

    pre = "/{ns}/{proj}"
    site_routes, project_routes = more_routes(site)
    return build_app(site, [
        Route("/", explore), Route("/explore", explore), Route("/users/{username}", user_page),
        *site_routes, *project_routes,
        Route(pre, project_page), Route(f"{pre}/star", star, methods=["POST"]),
        Route(f"{pre}/-/issues", issues),
        Route(f"{pre}/-/issues/new", new_issue, methods=["GET", "POST"]),
        Route(f"{pre}/-/issues/{{iid}}", issue),
        Route(f"{pre}/-/issues/{{iid}}/{{action}}", issue_action, methods=["POST"]),
        Route(f"{pre}/-/merge_requests", merge_requests),
        Route(f"{pre}/-/merge_requests/{{iid}}", merge_request),
        Route(f"{pre}/-/project_members", members, methods=["GET", "POST"]),
        Route(f"{pre}/-/labels", labels, methods=["GET", "POST"]),
    ])
