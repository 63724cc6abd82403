"""The code-hosting site's issues and merge requests: a project's issue list (state, label
and title filters, sort), an issue with its comments and edit forms, a new issue, and the merge
request list and pages. Writing needs the login."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_choice,
    form_text,
    path_int,
    query_choice,
    query_text,
    read_form,
    redirect,
)
from .gitlab_projects import TODAY, base, me, project
from .views import field, filter_links, form, link, pager, pager_view, sort_links, table

ISSUE_SORTS = {"created_desc": "Created date (newest)", "created_asc": "Created date (oldest)"}
_ISSUE_ORDER = {"created_desc": "i.created DESC, i.iid DESC", "created_asc": "i.created, i.iid"}


def issue_pages(site: Site) -> Pages:
    """The issue and merge request pages' endpoints by name."""

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

    return {"issues": issues, "issue": issue, "issue_action": issue_action,
            "new_issue": new_issue, "merge_requests": merge_requests,
            "merge_request": merge_request}
