#!/usr/bin/env python3
"""Write the bundled terminal tasks (envs/terminal/tasks/) in Harbor's task layout.

Usage: python scripts/gen_terminal_tasks.py [OUT_DIR]   (default envs/terminal/tasks; the
folder is replaced). The generated folders are committed; rerun after editing a task below.

Each task is a dict: ``name``, ``split``, ``difficulty``, ``category``, ``instruction``,
``files`` (relative to /app), ``setup`` (RUN lines at build time, in /app), ``solve`` (the
oracle's bash), ``check`` (bash run with ``set -euo pipefail`` by tests/test.sh: exit 0 = pass),
``expected`` (files for the check, under /tests/expected/), ``packages`` (Debian packages the
task needs: the Dockerfile installs them; the bubblewrap backend checks the host has them) and
``wrong`` (bash answers that must score 0: constants and partial work, checked by the tests).
Data and expected answers come from a seeded generator per task, so a task's answer is never a
constant shared with another task.
"""

from __future__ import annotations

import random
import shutil
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "envs" / "terminal" / "tasks"
TASKS: list[dict] = []

CHECK_LIB = r"""set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
# py: run the Python check on stdin in /tmp, isolated (-I: neither the working directory nor
# PYTHON* variables reach sys.path); it passes only by reaching its end, which prints this run's
# nonce (the agent's code it imports could otherwise end the process with status 0)
py() {
  local nonce
  nonce=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  [ "$( { cat; printf '\nprint("passed", __import__("sys").argv[1])\n'; } \
      | (cd /tmp && timeout 10 python3 -I - "$nonce") | tail -n 1)" = "passed $nonce" ]
}
"""

TEST_SH = """#!/bin/bash
# Verifier: runs check.sh and writes 1 to /logs/verifier/reward.txt only when it passes.
mkdir -p /logs/verifier
if bash /tests/check.sh > /logs/verifier/check-output.txt 2>&1; then reward=1; else reward=0; fi
echo "$reward" > /logs/verifier/reward.txt
"""


def task(**spec) -> None:
    """Add one task (see the module docstring for the keys)."""
    spec.setdefault("files", {})
    spec.setdefault("setup", [])
    spec.setdefault("expected", {})
    spec.setdefault("packages", [])
    spec.setdefault("wrong", [])
    TASKS.append(spec)


def rng(name: str) -> random.Random:
    return random.Random(name)


WORDS = ("alpha beta gamma delta omega kappa sigma lambda theta zeta river stone cloud "
         "maple cedar falcon otter amber coral ember").split()


# ---------------------------------------------------------------- files and text --------

def _log(r: random.Random, n: int) -> list[str]:
    levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"]
    return [f"2026-03-{r.randint(1, 28):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d} "
            f"{r.choice(levels)} {r.choice(WORDS)} {r.choice(WORDS)} id={r.randint(1, 999)}"
            for _ in range(n)]


r = rng("count-error-lines")
lines = _log(r, 120)
n_err = sum("ERROR" in ln for ln in lines)
task(name="count-error-lines", split="train", difficulty="easy", category="text",
     instruction="Count the lines of /app/server.log that contain the word ERROR and write "
                 "the number (digits only) to /app/answer.txt.",
     files={"server.log": "\n".join(lines) + "\n"},
     solve="grep -c ERROR /app/server.log > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{n_err}" ]',
     wrong=["wc -l < /app/server.log > /app/answer.txt", "echo 0 > /app/answer.txt"])

r = rng("unique-ips")
ips = [f"10.0.{r.randint(0, 3)}.{r.randint(1, 30)}" for _ in range(200)]
access = [f"{ip} - - [01/Mar/2026] \"GET /{r.choice(WORDS)} HTTP/1.1\" 200" for ip in ips]
task(name="unique-ips", split="train", difficulty="easy", category="text",
     instruction="/app/access.log is a web server log whose first field is the client IP. "
                 "Write the number of distinct client IPs to /app/answer.txt.",
     files={"access.log": "\n".join(access) + "\n"},
     solve="awk '{print $1}' /app/access.log | sort -u | wc -l > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{len(set(ips))}" ]',
     wrong=["wc -l < /app/access.log > /app/answer.txt"])

r = rng("top-ip")
ips = [f"192.168.1.{r.randint(1, 12)}" for _ in range(300)]
top = max(sorted(set(ips)), key=ips.count)
while sorted((ips.count(i) for i in set(ips)), reverse=True)[:2].count(ips.count(top)) > 1:
    ips.append(top)
task(name="top-ip", split="test", difficulty="medium", category="text",
     instruction="/app/access.log has one request per line, client IP first. Write the IP "
                 "that made the most requests to /app/answer.txt.",
     files={"access.log": "\n".join(f"{ip} GET /index.html 200" for ip in ips) + "\n"},
     solve="awk '{print $1}' /app/access.log | sort | uniq -c | sort -rn | head -1 "
           "| awk '{print $2}' > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{top}" ]',
     wrong=["head -1 /app/access.log | awk '{print $1}' > /app/answer.txt"])

r = rng("replace-hostname")
confs = {}
for i in range(4):
    body = [f"name = svc{i}", "db_host = db.old.internal", f"port = {5000 + i}",
            "# fallback: db.old.internal:5432", f"timeout = {r.randint(5, 60)}"]
    confs[f"conf/svc{i}.conf"] = "\n".join(body) + "\n"
exp = {k.replace("conf/", ""): v.replace("db.old.internal", "db.new.internal")
       for k, v in confs.items()}
task(name="replace-hostname", split="train", difficulty="easy", category="text",
     instruction="Every file in /app/conf/ mentions the host db.old.internal. Replace every "
                 "occurrence with db.new.internal, changing nothing else.",
     files={**confs, "README": "db.old.internal is mentioned here too; leave this file.\n"},
     solve="sed -i 's/db\\.old\\.internal/db.new.internal/g' /app/conf/*.conf",
     check="\n".join(f"same /app/conf/{k} /tests/expected/{k}" for k in exp)
           + "\ngrep -q db.old.internal /app/README",
     expected=exp,
     wrong=["sed -i '0,/db.old.internal/s//db.new.internal/' /app/conf/*.conf",
            "sed -i 's/db.old.internal/db.new.internal/g' /app/conf/*.conf /app/README"])

r = rng("extract-emails")
people = [f"{r.choice(WORDS)}.{r.choice(WORDS)}@{r.choice(['example.com', 'corp.org'])}"
          for _ in range(15)]
text = []
for p in people + people[:5]:
    text.append(f"Contact {r.choice(WORDS)} at <{p}> about ticket #{r.randint(100, 999)}.")
r.shuffle(text)
task(name="extract-emails", split="train", difficulty="medium", category="text",
     instruction="Extract every email address from /app/messages.txt and write the distinct "
                 "addresses, sorted, one per line, to /app/emails.txt.",
     files={"messages.txt": "\n".join(text) + "\n"},
     solve="grep -oE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[a-z]+' /app/messages.txt "
           "| sort -u > /app/emails.txt",
     check="same /app/emails.txt /tests/expected/emails.txt",
     expected={"emails.txt": "\n".join(sorted(set(people))) + "\n"},
     wrong=["grep -oE '[a-z.]+@[a-z.]+' /app/messages.txt > /app/emails.txt"])

r = rng("csv-column-sum")
rows = [(i, r.choice(WORDS), r.randint(1, 500)) for i in range(1, 41)]
task(name="csv-column-sum", split="train", difficulty="easy", category="text",
     instruction="/app/sales.csv has a header line and the columns id,item,amount. Write the "
                 "sum of the amount column to /app/answer.txt.",
     files={"sales.csv": "id,item,amount\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows)},
     solve="awk -F, 'NR>1{s+=$3} END{print s}' /app/sales.csv > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{sum(c for _, _, c in rows)}" ]',
     wrong=["awk -F, 'NR>1{s+=$1} END{print s}' /app/sales.csv > /app/answer.txt"])

r = rng("csv-filter")
regions = ["west", "east", "north", "south"]
rows = [(i, r.choice(regions), r.randint(10, 99)) for i in range(1, 51)]
task(name="csv-filter", split="test", difficulty="medium", category="text",
     instruction="Write the rows of /app/orders.csv whose region is west to /app/west.csv, "
                 "keeping the header line and the original order.",
     files={"orders.csv": "id,region,total\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows)},
     solve="awk -F, 'NR==1 || $2==\"west\"' /app/orders.csv > /app/west.csv",
     check="same /app/west.csv /tests/expected/west.csv",
     expected={"west.csv": "id,region,total\n" + "".join(
         f"{a},{b},{c}\n" for a, b, c in rows if b == "west")},
     wrong=["grep west /app/orders.csv > /app/west.csv"])

r = rng("json-active-users")
users = [{"id": i, "name": f"{r.choice(WORDS)}{i}", "active": r.random() < 0.5,
          "email": f"u{i}@example.com"} for i in range(1, 21)]
import json as _json  # noqa: E402

task(name="json-active-users", split="train", difficulty="easy", category="json",
     instruction="/app/users.json is an array of users. Write the names of the users whose "
                 "\"active\" is true, sorted, one per line, to /app/active.txt.",
     files={"users.json": _json.dumps(users, indent=1) + "\n"},
     packages=["jq"],
     solve="jq -r '.[] | select(.active) | .name' /app/users.json | sort > /app/active.txt",
     check="same /app/active.txt /tests/expected/active.txt",
     expected={"active.txt": "\n".join(sorted(u["name"] for u in users if u["active"])) + "\n"},
     wrong=["jq -r '.[].name' /app/users.json | sort > /app/active.txt"])

r = rng("json-to-csv")
users = [{"id": i, "name": f"{r.choice(WORDS)}", "email": f"{r.choice(WORDS)}{i}@mail.net",
          "tags": [r.choice(WORDS)]} for i in range(1, 16)]
task(name="json-to-csv", split="train", difficulty="medium", category="json",
     instruction="Convert /app/users.json (an array of objects) to /app/users.csv with the "
                 "header id,name,email and one line per user in the same order.",
     files={"users.json": _json.dumps(users) + "\n"},
     packages=["jq"],
     solve="{ echo id,name,email; jq -r '.[] | [.id, .name, .email] | @csv' /app/users.json "
           "| tr -d '\"'; } > /app/users.csv",
     check="same /app/users.csv /tests/expected/users.csv",
     expected={"users.csv": "id,name,email\n" + "".join(
         f"{u['id']},{u['name']},{u['email']}\n" for u in users)},
     wrong=["echo id,name,email > /app/users.csv"])

r = rng("dedupe-lines")
items = [r.choice(WORDS) + str(r.randint(1, 9)) for _ in range(60)]
seen: list[str] = []
for it in items:
    if it not in seen:
        seen.append(it)
task(name="dedupe-lines", split="train", difficulty="easy", category="text",
     instruction="/app/list.txt has repeated lines. Remove the repeats in place, keeping the "
                 "first occurrence of each line and the original order.",
     files={"list.txt": "\n".join(items) + "\n"},
     solve="awk '!seen[$0]++' /app/list.txt > /tmp/l && cat /tmp/l > /app/list.txt",
     check="same /app/list.txt /tests/expected/list.txt",
     expected={"list.txt": "\n".join(seen) + "\n"},
     wrong=["sort -u /app/list.txt -o /app/list.txt"])

r = rng("sort-numbers")
nums = [r.randint(-500, 5000) for _ in range(40)]
task(name="sort-numbers", split="test", difficulty="easy", category="text",
     instruction="Sort the integers in /app/numbers.txt (one per line) from largest to "
                 "smallest and write them to /app/sorted.txt.",
     files={"numbers.txt": "\n".join(map(str, nums)) + "\n"},
     solve="sort -rn /app/numbers.txt > /app/sorted.txt",
     check="same /app/sorted.txt /tests/expected/sorted.txt",
     expected={"sorted.txt": "\n".join(map(str, sorted(nums, reverse=True))) + "\n"},
     wrong=["sort -r /app/numbers.txt > /app/sorted.txt"])

r = rng("word-frequency")
freq_words = WORDS[:9]
weights = list(range(20, 2, -2))
body = []
for w, k in zip(freq_words, weights, strict=False):
    body += [w.capitalize() if i % 3 == 0 else w for i in range(k)]
r.shuffle(body)
text_lines = [" ".join(body[i:i + 8]) for i in range(0, len(body), 8)]
counts = {w: body.count(w) + body.count(w.capitalize()) for w in freq_words}
top5 = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
task(name="word-frequency", split="train", difficulty="medium", category="text",
     instruction="Find the 5 most frequent words in /app/text.txt, ignoring case. Write them "
                 "to /app/top5.txt as lines \"COUNT WORD\" (word in lower case), most frequent "
                 "first.",
     files={"text.txt": "\n".join(text_lines) + "\n"},
     solve="tr 'A-Z' 'a-z' < /app/text.txt | tr -s ' ' '\\n' | grep -v '^$' | sort | uniq -c "
           "| sort -k1,1nr -k2 | head -5 | awk '{print $1, $2}' > /app/top5.txt",
     check="same /app/top5.txt /tests/expected/top5.txt",
     expected={"top5.txt": "".join(f"{c} {w}\n" for w, c in top5)},
     wrong=["tr -s ' ' '\\n' < /app/text.txt | sort | uniq -c | sort -rn | head -5 "
            "| awk '{print $1, $2}' > /app/top5.txt"])

r = rng("find-large-files")
data = {}
big = []
for i in range(14):
    size = r.choice([100, 400, 900, 1500, 3000, 5000])
    path = f"data/{r.choice(['a', 'b', 'c'])}/f{i}.bin"
    data[path] = "x" * size
    if size > 1000:
        big.append(path[len("data/"):])
task(name="find-large-files", split="train", difficulty="medium", category="files",
     instruction="List the files under /app/data that are larger than 1000 bytes. Write their "
                 "paths relative to /app/data (like a/f1.bin), sorted, one per line, to "
                 "/app/big.txt.",
     files=data,
     solve="cd /app/data && find . -type f -size +1000c | sed 's|^\\./||' | sort > /app/big.txt",
     check="same /app/big.txt /tests/expected/big.txt",
     expected={"big.txt": "\n".join(sorted(big)) + "\n"},
     wrong=["cd /app/data && find . -type f | sed 's|^\\./||' | sort > /app/big.txt"])

r = rng("rename-extensions")
photos = {f"photos/{d}/img{i}.jpeg": f"jpeg {i}\n" for i, d in
          enumerate(["2024", "2024", "2025", "2025", "2025"])}
photos["photos/keep.png"] = "png\n"
task(name="rename-extensions", split="train", difficulty="medium", category="files",
     instruction="Rename every .jpeg file under /app/photos (in all subfolders) to the same "
                 "name with the extension .jpg. Leave other files alone.",
     files=photos,
     solve="find /app/photos -name '*.jpeg' | while read -r f; do mv \"$f\" \"${f%.jpeg}.jpg\"; "
           "done",
     check="\n".join(f'[ "$(cat /app/{p[:-5]}.jpg)" = "{c.strip()}" ] && [ ! -e /app/{p} ]'
                     for p, c in photos.items() if p.endswith(".jpeg"))
           + "\n[ -f /app/photos/keep.png ]",
     wrong=["rm -rf /app/photos/2024"])

r = rng("strip-comments")
conf = []
kept = []
for i in range(25):
    kind = r.random()
    if kind < 0.3:
        conf.append(f"# comment {r.choice(WORDS)}")
    elif kind < 0.4:
        conf.append("")
    else:
        line = f"{r.choice(WORDS)}_{i} = {r.randint(1, 99)}  # trailing note kept"
        conf.append(line)
        kept.append(line)
task(name="strip-comments", split="test", difficulty="easy", category="text",
     instruction="Remove from /app/settings.conf, in place, every line that starts with # and "
                 "every empty line. Other lines stay exactly as they are.",
     files={"settings.conf": "\n".join(conf) + "\n"},
     solve="sed -i -e '/^#/d' -e '/^$/d' /app/settings.conf",
     check="same /app/settings.conf /tests/expected/settings.conf\n"
           "[ \"$(wc -l < /app/settings.conf)\" = \"" + str(len(kept)) + "\" ]",
     expected={"settings.conf": "\n".join(kept) + "\n"},
     wrong=["sed -i -e 's/#.*//' -e '/^$/d' /app/settings.conf"])

r = rng("swap-columns")
rows = [(r.choice(WORDS), r.randint(1, 100), r.choice(WORDS)) for _ in range(20)]
task(name="swap-columns", split="train", difficulty="easy", category="text",
     instruction="/app/data.tsv is tab-separated with three columns. Write it to /app/swapped.tsv "
                 "with the first two columns swapped (still tab-separated).",
     files={"data.tsv": "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows)},
     solve="awk -F'\\t' 'BEGIN{OFS=\"\\t\"} {t=$1; $1=$2; $2=t; print}' /app/data.tsv "
           "> /app/swapped.tsv",
     check="same /app/swapped.tsv /tests/expected/swapped.tsv",
     expected={"swapped.tsv": "".join(f"{b}\t{a}\t{c}\n" for a, b, c in rows)},
     wrong=["cp /app/data.tsv /app/swapped.tsv"])

r = rng("find-todo")
src = {}
todo = []
for i in range(10):
    path = f"src/{r.choice(['core', 'util', 'web'])}/mod{i}.py"
    has = r.random() < 0.4
    src[path] = f"def f{i}():\n    {'# TODO: handle errors' if has else 'pass'}\n    return {i}\n"
    if has:
        todo.append(path)
task(name="find-todo", split="train", difficulty="easy", category="text",
     instruction="Write the paths (relative to /app, like src/core/mod1.py) of the files under "
                 "/app/src that contain TODO, sorted, one per line, to /app/todo.txt.",
     files=src,
     solve="cd /app && grep -rl TODO src | sort > /app/todo.txt",
     check="same /app/todo.txt /tests/expected/todo.txt",
     expected={"todo.txt": "\n".join(sorted(todo)) + "\n"},
     wrong=["cd /app && find src -name '*.py' | sort > /app/todo.txt"])

r = rng("join-files")
ids = r.sample(range(100, 200), 12)
names = {i: r.choice(WORDS) for i in ids}
ages = {i: r.randint(18, 80) for i in ids if r.random() < 0.8}
task(name="join-files", split="test", difficulty="medium", category="text",
     instruction="/app/names.txt has lines \"ID NAME\" and /app/ages.txt has lines \"ID AGE\". "
                 "Write \"ID NAME AGE\" for every ID present in both files, sorted by ID, to "
                 "/app/joined.txt.",
     files={"names.txt": "".join(f"{i} {names[i]}\n" for i in ids),
            "ages.txt": "".join(f"{i} {a}\n" for i, a in reversed(list(ages.items())))},
     solve="cd /app && join <(sort names.txt) <(sort ages.txt) | sort -n > joined.txt",
     check="same /app/joined.txt /tests/expected/joined.txt",
     expected={"joined.txt": "".join(f"{i} {names[i]} {ages[i]}\n" for i in sorted(ages))},
     wrong=["cd /app && paste -d' ' names.txt <(cut -d' ' -f2 ages.txt) > joined.txt"])

r = rng("time-window")
stamps = sorted(f"{r.randint(8, 17):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"
                for _ in range(150))
n_win = sum("10:30:00" <= s <= "14:15:00" for s in stamps)
task(name="time-window", split="train", difficulty="hard", category="text",
     instruction="Each line of /app/requests.log starts with a time HH:MM:SS. Count the "
                 "requests from 10:30:00 to 14:15:00 inclusive and write the count to "
                 "/app/answer.txt.",
     files={"requests.log": "".join(f"{s} GET /api/{r.choice(WORDS)}\n" for s in stamps)},
     solve="awk '$1 >= \"10:30:00\" && $1 <= \"14:15:00\"' /app/requests.log | wc -l "
           "> /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{n_win}" ]',
     wrong=["awk '$1 >= \"10:30:00\"' /app/requests.log | wc -l > /app/answer.txt"])

r = rng("line-lengths")
lines = [" ".join(r.choice(WORDS) for _ in range(r.randint(1, 12))) for _ in range(30)]
longest = max(range(len(lines)), key=lambda i: (len(lines[i]), -i))
task(name="longest-line", split="train", difficulty="easy", category="text",
     instruction="Write the line number (counting from 1) of the longest line of "
                 "/app/poem.txt to /app/answer.txt (the first one if several tie).",
     files={"poem.txt": "\n".join(lines) + "\n"},
     solve="awk '{ if (length($0) > m) { m = length($0); n = NR } } END { print n }' "
           "/app/poem.txt > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{longest + 1}" ]',
     wrong=["wc -l < /app/poem.txt > /app/answer.txt"])

# ---------------------------------------------------------------- git --------------------

GIT_ENV = ["git config --global user.name 'Build Bot'",
           "git config --global user.email bot@example.com",
           "git config --global init.defaultBranch main"]


def commits(*steps: tuple[str, str]) -> list[str]:
    """Shell lines making one commit per (shell command, message)."""
    out = []
    for i, (cmd, msg) in enumerate(steps):
        date = f"2026-01-{i + 1:02d}T12:00:00"
        out.append(f"{cmd} && git add -A && GIT_AUTHOR_DATE={date} GIT_COMMITTER_DATE={date} "
                   f"git commit -q -m '{msg}'")
    return out


task(name="git-init-commit", split="train", difficulty="easy", category="git",
     instruction="Turn /app/project into a git repository and commit all of its files in one "
                 "commit with the message \"initial import\". Use the branch name main.",
     files={"project/main.py": "print('hi')\n", "project/README.md": "# Project\n",
            "project/lib/util.py": "X = 1\n"},
     packages=["git"], setup=GIT_ENV,
     solve="cd /app/project && git init -q -b main && git add -A && "
           "git commit -q -m 'initial import'",
     check="cd /app/project\n[ \"$(git log --format=%s)\" = 'initial import' ]\n"
           "[ \"$(git ls-files | sort | tr '\\n' ' ')\" = 'README.md lib/util.py main.py ' ]\n"
           "[ -z \"$(git status --porcelain)\" ]",
     wrong=["cd /app/project && git init -q -b main && git add main.py && "
            "git commit -q -m 'initial import'"])

task(name="git-branch-at-tag-commit", split="train", difficulty="easy", category="git",
     instruction="In the repository /app/repo, create a branch named release pointing at the "
                 "commit whose message is \"version 1.0\" (do not move main).",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("echo 1 > v", "start"), ("echo 2 > v", "version 1.0"), ("echo 3 > v", "more work"),
         ("echo 4 > v", "even more")),
     solve="cd /app/repo && git branch release \"$(git log --format=%H --grep='^version 1.0$')\"",
     check="cd /app/repo\n[ \"$(git log -1 --format=%s release)\" = 'version 1.0' ]\n"
           "[ \"$(git log -1 --format=%s main)\" = 'even more' ]",
     wrong=["cd /app/repo && git branch release"])

task(name="git-find-secret-commit", split="test", difficulty="medium", category="git",
     instruction="Someone committed the string SECRET_TOKEN to /app/repo. Write the full hash "
                 "of the commit that first added it to /app/answer.txt.",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("echo a > a.txt", "add a"), ("echo b > b.txt", "add b"),
         ("echo 'key=SECRET_TOKEN' >> b.txt", "tweak b"), ("echo c > c.txt", "add c"),
         ("echo 'SECRET_TOKEN again' >> c.txt", "tweak c")),
     solve="cd /app/repo && git log --reverse --format=%H -S SECRET_TOKEN | head -1 "
           "> /app/answer.txt",
     check="cd /app/repo\nh=$(ans /app/answer.txt)\n[ ${#h} -ge 7 ]\n"
           "[ \"$(git log -1 --format=%s \"$h\")\" = 'tweak b' ]",
     wrong=["cd /app/repo && git rev-parse HEAD > /app/answer.txt"])

task(name="git-revert-commit", split="train", difficulty="medium", category="git",
     instruction="In /app/repo the commit with the message \"break config\" broke config.txt. "
                 "Undo that commit with a new commit (keep the history and the later commits).",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("printf 'mode=safe\\nlevel=1\\n' > config.txt", "add config"),
         ("sed -i 's/safe/unsafe/' config.txt", "break config"),
         ("echo notes > notes.txt", "add notes")),
     solve="cd /app/repo && git revert --no-edit "
           "\"$(git log --format=%H --grep='^break config$')\"",
     check="cd /app/repo\n[ \"$(cat config.txt)\" = \"$(printf 'mode=safe\\nlevel=1')\" ]\n"
           "[ -f notes.txt ]\n[ \"$(git rev-list --count HEAD)\" -ge 4 ]\n"
           "git log --format=%s | grep -qx 'break config'\n[ -z \"$(git status --porcelain)\" ]",
     wrong=["cd /app/repo && git reset -q --hard HEAD~2",
            "cd /app/repo && sed -i 's/unsafe/safe/' config.txt"])

task(name="git-merge-conflict", split="train", difficulty="hard", category="git",
     instruction="In /app/repo, merge the branch feature into main. greeting.txt conflicts: "
                 "resolve it so the file holds main's line followed by feature's line (no "
                 "conflict markers) and commit the merge.",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("echo base > greeting.txt", "base")) + [
         "git checkout -q -b feature"] + commits(("echo 'hello from feature' > greeting.txt",
                                                 "feature greeting")) + [
         "git checkout -q main"] + commits(("echo 'hello from main' > greeting.txt",
                                          "main greeting")),
     solve="cd /app/repo && git checkout -q main && { git merge feature >/dev/null 2>&1 || true; } "
           "&& printf 'hello from main\\nhello from feature\\n' > greeting.txt "
           "&& git add greeting.txt && git commit -q --no-edit",
     check="cd /app/repo\n[ \"$(git rev-parse --abbrev-ref HEAD)\" = main ]\n"
           "[ \"$(git log -1 --format=%P | wc -w)\" = 2 ]\n"
           "[ \"$(cat greeting.txt)\" = \"$(printf 'hello from main\\nhello from feature')\" ]\n"
           "git merge-base --is-ancestor feature HEAD",
     wrong=["cd /app/repo && printf 'hello from main\\nhello from feature\\n' > greeting.txt "
            "&& git commit -qam merged"])

task(name="git-count-authors", split="test", difficulty="easy", category="git",
     instruction="How many distinct commit authors (by email) does the history of /app/repo "
                 "have? Write the number to /app/answer.txt.",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + [
         f"echo {i} > f{i} && git add -A && git -c user.email={e}@x.org -c user.name={e} "
         f"commit -q -m c{i}" for i, e in enumerate(
             ["ann", "bob", "ann", "cid", "dee", "bob", "eve", "ann"])],
     solve="cd /app/repo && git log --format=%ae | sort -u | wc -l > /app/answer.txt",
     check='[ "$(ans /app/answer.txt)" = "5" ]',
     wrong=["cd /app/repo && git rev-list --count HEAD > /app/answer.txt"])

task(name="git-restore-deleted", split="train", difficulty="easy", category="git",
     instruction="The last commit of /app/repo deleted config.ini by mistake. Bring the file "
                 "back into the working tree with its content before the deletion.",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("printf '[db]\\nport=6543\\nuser=svc_r7\\n' > config.ini", "add config"),
         ("echo x > other", "other"), ("git rm -q config.ini", "cleanup")),
     solve="cd /app/repo && git checkout HEAD~1 -- config.ini",
     check="[ \"$(cat /app/repo/config.ini)\" = \"$(printf '[db]\\nport=6543\\nuser=svc_r7')\" ]",
     wrong=["cd /app/repo && printf '[db]\\n' > config.ini"])

task(name="git-tag-release", split="train", difficulty="easy", category="git",
     instruction="In /app/repo, tag the commit whose message is \"release two\" as v2.0.",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("echo 1 > f", "release one"), ("echo 2 > f", "release two"), ("echo 3 > f", "wip")),
     solve="cd /app/repo && git tag v2.0 \"$(git log --format=%H --grep='^release two$')\"",
     check="cd /app/repo\n[ \"$(git log -1 --format=%s v2.0)\" = 'release two' ]",
     wrong=["cd /app/repo && git tag v2.0"])

task(name="git-partial-commit", split="test", difficulty="medium", category="git",
     instruction="/app/repo has uncommitted changes to app.py and notes.txt. Commit only the "
                 "change to app.py, with the message \"fix app\"; leave notes.txt modified "
                 "but uncommitted.",
     packages=["git"],
     setup=GIT_ENV + ["git init -q repo", "cd repo"] + commits(
         ("echo 'print(1)' > app.py && echo n > notes.txt", "start")) + [
         "echo 'print(2)' > app.py", "echo more >> notes.txt"],
     solve="cd /app/repo && git add app.py && git commit -q -m 'fix app'",
     check="cd /app/repo\n[ \"$(git log -1 --format=%s)\" = 'fix app' ]\n"
           "[ \"$(git show HEAD:app.py)\" = 'print(2)' ]\n"
           "[ \"$(git show HEAD:notes.txt)\" = n ]\n"
           "[ \"$(git status --porcelain)\" = ' M notes.txt' ]",
     wrong=["cd /app/repo && git commit -qam 'fix app'"])

# ---------------------------------------------------------------- debugging -------------

task(name="py-fix-syntax", split="train", difficulty="easy", category="debug-python",
     instruction="python3 /app/area.py should print the area of a 7 by 6 rectangle but it "
                 "fails with a syntax error. Fix the program.",
     files={"area.py": "def area(w, h)\n    return w * h\n\nprint(area(7, 6))\n"},
     solve="sed -i 's/^def area(w, h)$/def area(w, h):/' /app/area.py",
     check='[ "$(cd /app && timeout 10 python3 area.py)" = 42 ]\n'
           "grep -q 'return w \\* h' /app/area.py",
     wrong=["printf 'print(42)\\n' > /app/area.py"])

task(name="py-fix-off-by-one", split="train", difficulty="medium", category="debug-python",
     instruction="/app/mathx.py defines total(n), which should return 1 + 2 + ... + n (0 for "
                 "n <= 0). It returns wrong values. Fix it.",
     files={"mathx.py": "def total(n):\n    s = 0\n    for i in range(n):\n        s += i\n"
                        "    return s\n"},
     solve="sed -i 's/range(n)/range(1, n + 1)/' /app/mathx.py",
     check="py <<'PY'\nimport sys\nsys.path.insert(0, '/app')\nimport mathx\n"
           "assert [mathx.total(k) for k in (-3, 0, 1, 2, 10, 57)] == [0, 0, 1, 3, 55, 1653]\n"
           "PY",
     wrong=["printf 'def total(n):\\n    return 55\\n' > /app/mathx.py"])

task(name="py-fix-import", split="test", difficulty="easy", category="debug-python",
     instruction="python3 /app/main.py fails with an import error. Fix main.py so it prints "
                 "the greeting from helpers.py.",
     files={"main.py": "from helper import greet\n\nprint(greet('ops'))\n",
            "helpers.py": "def greet(who):\n    return f'hello, {who}!'\n"},
     solve="sed -i 's/^from helper import/from helpers import/' /app/main.py",
     check='[ "$(cd /app && timeout 10 python3 main.py)" = "hello, ops!" ]\n'
           "grep -q 'from helpers import greet' /app/main.py",
     wrong=["printf \"print('hello, ops')\\n\" > /app/main.py"])

task(name="py-fix-kv-parser", split="train", difficulty="medium", category="debug-python",
     instruction="/app/kv.py has parse(text) that turns lines \"key=value\" into a dict. Values "
                 "may contain '=' themselves, blank lines and lines starting with # must be "
                 "skipped, and spaces around keys and values are stripped. Fix the bugs.",
     files={"kv.py": "def parse(text):\n    out = {}\n    for line in text.splitlines():\n"
                     "        key, value = line.split('=')\n        out[key] = value\n"
                     "    return out\n"},
     solve="cat > /app/kv.py <<'EOF'\ndef parse(text):\n    out = {}\n"
           "    for line in text.splitlines():\n        line = line.strip()\n"
           "        if not line or line.startswith('#'):\n            continue\n"
           "        key, _, value = line.partition('=')\n"
           "        out[key.strip()] = value.strip()\n    return out\nEOF",
     check="py <<'PY'\nimport sys\nsys.path.insert(0, '/app')\n"
           "import kv\nassert kv.parse('a=1\\n\\n# c\\n b = x=y \\nurl=h://q?a=b') == "
           "{'a': '1', 'b': 'x=y', 'url': 'h://q?a=b'}\nassert kv.parse('') == {}\nPY",
     wrong=["printf 'def parse(text):\\n    return {}\\n' > /app/kv.py"])

task(name="py-fix-numeric-sort", split="train", difficulty="medium", category="debug-python",
     instruction="python3 /app/oldest.py people.csv should print the name of the oldest person "
                 "in the CSV (name,age) but picks the wrong one. Fix oldest.py.",
     files={"oldest.py": "import csv, sys\n\nrows = list(csv.DictReader(open(sys.argv[1])))\n"
                         "rows.sort(key=lambda r: r['age'])\nprint(rows[-1]['name'])\n",
            "people.csv": "name,age\nana,9\nbo,45\ncy,100\ndi,7\n"},
     solve="sed -i \"s/key=lambda r: r\\['age'\\]/key=lambda r: int(r['age'])/\" /app/oldest.py",
     check="cd /tmp\nprintf 'name,age\\nx,99\\ny,1000\\nz,5\\n' > /tmp/p.csv\n"
           '[ "$(timeout 10 python3 /app/oldest.py /tmp/p.csv)" = y ]\n'
           '[ "$(timeout 10 python3 /app/oldest.py /app/people.csv)" = cy ]',
     wrong=["printf 'print(\"cy\")\\n' > /app/oldest.py"])

task(name="py-write-ipv4-check", split="test", difficulty="hard", category="debug-python",
     instruction="Write /app/ipcheck.py defining is_ipv4(s) -> bool: True exactly when s is a "
                 "dotted-quad IPv4 address (four decimal numbers 0-255 without leading zeros, "
                 "like 10.0.0.1).",
     solve="cat > /app/ipcheck.py <<'EOF'\ndef is_ipv4(s):\n    parts = s.split('.')\n"
           "    if len(parts) != 4:\n        return False\n    for p in parts:\n"
           "        if not p.isdigit() or not p.isascii() or (len(p) > 1 and p[0] == '0'):\n"
           "            return False\n        if int(p) > 255:\n            return False\n"
           "    return True\nEOF",
     check="py <<'PY'\nimport sys\nsys.path.insert(0, '/app')\n"
           "from ipcheck import is_ipv4\ngood = ['10.0.0.1', '255.255.255.255', '0.0.0.0', "
           "'192.168.1.20']\nbad = ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', 'a.b.c.d', "
           "'', '1..2.3', '1.2.3.-4', ' 1.2.3.4']\nassert all(is_ipv4(g) for g in good)\n"
           "assert not any(is_ipv4(b) for b in bad)\nPY",
     wrong=["printf 'def is_ipv4(s):\\n    return s.count(\".\") == 3\\n' > /app/ipcheck.py"])

task(name="py-fix-average", split="train", difficulty="easy", category="debug-python",
     instruction="python3 /app/avg.py nums.txt should print the average of the numbers in the "
                 "file, but it crashes on blank lines. Make it skip blank lines.",
     files={"avg.py": "import sys\nnums = [float(x) for x in open(sys.argv[1]).read()"
                      ".split('\\n')]\nprint(sum(nums) / len(nums))\n",
            "nums.txt": "4\n8\n15\n\n"},
     solve="cat > /app/avg.py <<'EOF'\nimport sys\nnums = [float(x) for x in "
           "open(sys.argv[1]).read().split('\\n') if x.strip()]\nprint(sum(nums) / len(nums))\n"
           "EOF\npython3 /app/avg.py /app/nums.txt",
     check="cd /tmp\nprintf '1\\n\\n2\\n\\n6\\n\\n' > /tmp/n.txt\n"
           '[ "$(timeout 10 python3 /app/avg.py /tmp/n.txt)" = 3.0 ]\n'
           "printf '10\\n\\n\\n20\\n' > /tmp/m.txt\n"
           '[ "$(timeout 10 python3 /app/avg.py /tmp/m.txt)" = 15.0 ]',
     wrong=["printf 'print(9.0)\\n' > /app/avg.py", "printf 'print(3.0)\\n' > /app/avg.py"])

task(name="sh-fix-quoting", split="train", difficulty="medium", category="debug-shell",
     instruction="/app/backup.sh SRC DEST copies every .txt file of SRC into DEST but breaks on "
                 "file names with spaces. Fix the script.",
     files={"backup.sh": "#!/bin/bash\nsrc=$1\ndest=$2\nmkdir -p $dest\n"
                         "for f in $(ls $src/*.txt); do\n  cp $f $dest/\ndone\n"},
     solve="cat > /app/backup.sh <<'EOF'\n#!/bin/bash\nsrc=$1\ndest=$2\nmkdir -p \"$dest\"\n"
           "for f in \"$src\"/*.txt; do\n  cp \"$f\" \"$dest\"/\ndone\nEOF",
     check="mkdir -p '/tmp/in dir'\necho one > '/tmp/in dir/a b.txt'\n"
           "echo two > '/tmp/in dir/c.txt'\necho no > '/tmp/in dir/d.log'\n"
           "timeout 10 bash /app/backup.sh '/tmp/in dir' '/tmp/out dir'\n"
           "[ \"$(cat '/tmp/out dir/a b.txt')\" = one ]\n"
           "[ \"$(cat '/tmp/out dir/c.txt')\" = two ]\n"
           "[ ! -e '/tmp/out dir/d.log' ]",
     wrong=["true"])

task(name="sh-fix-crlf", split="test", difficulty="easy", category="debug-shell",
     instruction="./run.sh in /app does not run: it is not executable and was saved with "
                 "Windows line endings. Fix both so that ./run.sh prints its message.",
     files={"run.sh": "#!/bin/bash\r\necho \"ready: $(echo 7x6 | tr x '*' | bc 2>/dev/null "
                      "|| echo 42)\"\r\n"},
     solve="sed -i 's/\\r$//' /app/run.sh && chmod +x /app/run.sh",
     check="cd /app\n[ -x run.sh ]\n! grep -q $'\\r' run.sh\n"
           "./run.sh | grep -q '^ready: 42$'",
     wrong=["chmod +x /app/run.sh"])

task(name="sh-fix-exit-code", split="train", difficulty="medium", category="debug-shell",
     instruction="/app/check.sh FILE must exit with status 0 when FILE exists and is not empty, "
                 "and 1 otherwise, but it always exits 0. Fix it.",
     files={"check.sh": "#!/bin/bash\nif [ -s \"$1\" ]; then\n  echo ok\nelse\n  echo missing\n"
                        "fi\nexit 0\n"},
     solve="sed -i 's/^  echo missing$/  echo missing; exit 1/' /app/check.sh",
     check="echo x > /tmp/full\n: > /tmp/empty\nbash /app/check.sh /tmp/full\n"
           "! bash /app/check.sh /tmp/empty\n! bash /app/check.sh /tmp/nope",
     wrong=["printf '#!/bin/bash\\nexit 1\\n' > /app/check.sh"])

task(name="sh-fix-args-loop", split="train", difficulty="medium", category="debug-shell",
     instruction="/app/count.sh FILE... should print \"NAME LINES\" for every file given, but "
                 "it only handles the first one. Fix it.",
     files={"count.sh": "#!/bin/bash\nf=$1\necho \"$(basename \"$f\") $(wc -l < \"$f\")\"\n"},
     solve="cat > /app/count.sh <<'EOF'\n#!/bin/bash\nfor f in \"$@\"; do\n"
           "  echo \"$(basename \"$f\") $(wc -l < \"$f\")\"\ndone\nEOF",
     check="printf 'a\\nb\\n' > /tmp/x1\nprintf 'a\\n' > /tmp/x2\nprintf '1\\n2\\n3\\n' > /tmp/x3\n"
           "[ \"$(bash /app/count.sh /tmp/x1 /tmp/x2 /tmp/x3 | tr '\\n' ';')\" = "
           "'x1 2;x2 1;x3 3;' ]",
     wrong=["true"])

# ---------------------------------------------------------------- sqlite -----------------

r = rng("sqlite")
customers = [(i, f"{r.choice(WORDS)}_{i}") for i in range(1, 9)]
orders = [(i, r.randint(1, 8), r.choice(["shipped", "pending", "cancelled"]),
           r.randint(5, 400)) for i in range(1, 61)]
SHOP_SQL = ("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);\n"
            "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, status TEXT, "
            "amount INTEGER);\n"
            + "".join(f"INSERT INTO customers VALUES({i}, '{n}');\n" for i, n in customers)
            + "".join(f"INSERT INTO orders VALUES({a}, {b}, '{c}', {d});\n"
                      for a, b, c, d in orders))
SHOP_SETUP = ["sqlite3 shop.db < schema.sql", "rm schema.sql"]
n_shipped = sum(o[2] == "shipped" for o in orders)
totals: dict[int, int] = {}
for _, cid, _, amt in orders:
    totals[cid] = totals.get(cid, 0) + amt
top_c = dict(customers)[max(totals, key=lambda k: totals[k])]

task(name="sqlite-count-shipped", split="train", difficulty="easy", category="sqlite",
     instruction="/app/shop.db is a SQLite database. Write the number of orders whose status "
                 "is 'shipped' to /app/answer.txt.",
     files={"schema.sql": SHOP_SQL}, setup=SHOP_SETUP, packages=["sqlite3"],
     solve="sqlite3 /app/shop.db \"SELECT count(*) FROM orders WHERE status='shipped'\" "
           "> /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{n_shipped}" ]',
     wrong=["sqlite3 /app/shop.db 'SELECT count(*) FROM orders' > /app/answer.txt"])

task(name="sqlite-top-customer", split="test", difficulty="medium", category="sqlite",
     instruction="In the SQLite database /app/shop.db, find the customer with the largest total "
                 "order amount (all statuses) and write their name to /app/answer.txt.",
     files={"schema.sql": SHOP_SQL}, setup=SHOP_SETUP, packages=["sqlite3"],
     solve="sqlite3 /app/shop.db 'SELECT c.name FROM customers c JOIN orders o ON "
           "o.customer_id = c.id GROUP BY c.id ORDER BY sum(o.amount) DESC LIMIT 1' "
           "> /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{top_c}" ]',
     wrong=["sqlite3 /app/shop.db 'SELECT name FROM customers LIMIT 1' > /app/answer.txt"])

r = rng("sqlite-load-csv")
products = [(i, f"{r.choice(WORDS)}-{i}", round(r.uniform(1, 90), 2)) for i in range(1, 13)]
task(name="sqlite-load-csv", split="train", difficulty="easy", category="sqlite",
     instruction="Create the SQLite database /app/catalog.db with a table products(id INTEGER "
                 "PRIMARY KEY, name TEXT NOT NULL, price REAL) holding every row of "
                 "/app/products.csv (which has a header line).",
     files={"products.csv": "id,name,price\n" + "".join(f"{a},{b},{c}\n" for a, b, c in products)},
     packages=["sqlite3"],
     solve="sqlite3 /app/catalog.db 'CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT NOT "
           "NULL, price REAL)' && tail -n +2 /app/products.csv > /tmp/p.csv && "
           "sqlite3 /app/catalog.db '.mode csv' '.import /tmp/p.csv products'",
     check="[ \"$(sqlite3 /app/catalog.db 'SELECT count(*) FROM products')\" = "
           f"{len(products)} ]\n"
           f"[ \"$(sqlite3 /app/catalog.db 'SELECT round(sum(price), 2) FROM products')\" = "
           f"\"{round(sum(p[2] for p in products), 2)}\" ]\n"
           "sqlite3 /app/catalog.db \"SELECT name FROM products WHERE id = 7\" | grep -qx "
           f"'{products[6][1]}'\n"
           "sqlite3 /app/catalog.db 'PRAGMA table_info(products)' | grep -q '^1|name|TEXT|1'",
     wrong=["sqlite3 /app/catalog.db 'CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT "
            "NOT NULL, price REAL)'"])

r = rng("sqlite-raise-prices")
books = [(i, r.choice(["books", "games", "music"]), round(r.uniform(5, 50), 2))
         for i in range(1, 21)]
raised = sum(round(p * 1.1, 2) if c == "books" else p for _, c, p in books)
task(name="sqlite-raise-prices", split="train", difficulty="medium", category="sqlite",
     instruction="In /app/store.db, raise the price of every item in the category 'books' by "
                 "10%, rounded to 2 decimals. Other categories keep their prices.",
     files={"schema.sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, category TEXT, price REAL);"
                          "\n" + "".join(f"INSERT INTO items VALUES({a}, '{b}', {c});\n"
                                         for a, b, c in books)},
     setup=["sqlite3 store.db < schema.sql", "rm schema.sql"], packages=["sqlite3"],
     solve="sqlite3 /app/store.db \"UPDATE items SET price = round(price * 1.1, 2) "
           "WHERE category = 'books'\"",
     check="[ \"$(sqlite3 /app/store.db 'SELECT round(sum(price), 2) FROM items')\" = "
           f"\"{round(raised, 2)}\" ]",
     wrong=["sqlite3 /app/store.db 'UPDATE items SET price = round(price * 1.1, 2)'"])

r = rng("sqlite-export")
emps = [(i, f"{r.choice(WORDS)}{i}", r.choice(["eng", "ops", "sales"]),
         r.randint(40, 150) * 1000) for i in range(1, 26)]
EMP_SQL = ("CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT, dept TEXT, salary INTEGER);"
           "\n" + "".join(f"INSERT INTO employees VALUES({a}, '{b}', '{c}', {d});\n"
                          for a, b, c, d in emps))
task(name="sqlite-export-csv", split="test", difficulty="medium", category="sqlite",
     instruction="Export the employees of the department 'eng' from /app/hr.db to /app/eng.csv: "
                 "header id,name,salary, then one line per employee ordered by id.",
     files={"schema.sql": EMP_SQL}, setup=["sqlite3 hr.db < schema.sql", "rm schema.sql"],
     packages=["sqlite3"],
     solve="sqlite3 -header -csv /app/hr.db \"SELECT id, name, salary FROM employees WHERE "
           "dept = 'eng' ORDER BY id\" > /app/eng.csv",
     check="tr -d '\\r' < /app/eng.csv > /tmp/e.csv\nsame /tmp/e.csv /tests/expected/eng.csv",
     expected={"eng.csv": "id,name,salary\n" + "".join(
         f"{a},{b},{d}\n" for a, b, c, d in emps if c == "eng")},
     wrong=["sqlite3 -header -csv /app/hr.db 'SELECT id, name, salary FROM employees' "
            "> /app/eng.csv"])

r = rng("sqlite-dedupe")
emails = [f"{w}@ex.com" for w in WORDS[:10]]
contacts = [(i, r.choice(emails)) for i in range(1, 31)]
keep = {}
for i, e in contacts:
    keep.setdefault(e, i)
task(name="sqlite-dedupe", split="train", difficulty="hard", category="sqlite",
     instruction="The table contacts(id, email) in /app/crm.db has several rows per email. "
                 "Delete the duplicates so each email keeps only its row with the lowest id.",
     files={"schema.sql": "CREATE TABLE contacts(id INTEGER PRIMARY KEY, email TEXT);\n" + "".join(
         f"INSERT INTO contacts VALUES({i}, '{e}');\n" for i, e in contacts)},
     setup=["sqlite3 crm.db < schema.sql", "rm schema.sql"], packages=["sqlite3"],
     solve="sqlite3 /app/crm.db 'DELETE FROM contacts WHERE id NOT IN (SELECT min(id) FROM "
           "contacts GROUP BY email)'",
     check="[ \"$(sqlite3 /app/crm.db 'SELECT group_concat(id) FROM (SELECT id FROM contacts "
           f"ORDER BY id)')\" = \"{','.join(map(str, sorted(keep.values())))}\" ]",
     wrong=["sqlite3 /app/crm.db 'DELETE FROM contacts WHERE id NOT IN (SELECT max(id) FROM "
            "contacts GROUP BY email)'", "sqlite3 /app/crm.db 'DELETE FROM contacts'"])

task(name="sqlite-add-index", split="train", difficulty="easy", category="sqlite",
     instruction="Queries on orders by customer are slow in /app/shop.db. Create an index named "
                 "idx_orders_customer on orders(customer_id).",
     files={"schema.sql": SHOP_SQL}, setup=SHOP_SETUP, packages=["sqlite3"],
     solve="sqlite3 /app/shop.db 'CREATE INDEX idx_orders_customer ON orders(customer_id)'",
     check="sqlite3 /app/shop.db \"PRAGMA index_info(idx_orders_customer)\" | grep -q "
           "'customer_id'\n"
           f"[ \"$(sqlite3 /app/shop.db 'SELECT count(*) FROM orders')\" = {len(orders)} ]",
     wrong=["sqlite3 /app/shop.db 'CREATE INDEX idx_orders_customer ON orders(status)'"])

avg: dict[str, list[int]] = {}
for _, _, dept, sal in emps:
    avg.setdefault(dept, []).append(sal)
report = "".join(f"{d} {round(sum(v) / len(v))}\n" for d, v in sorted(avg.items()))
task(name="sqlite-dept-report", split="train", difficulty="hard", category="sqlite",
     instruction="From /app/hr.db, write /app/report.txt with one line \"DEPT AVERAGE\" per "
                 "department (average salary rounded to an integer), sorted by department "
                 "name.",
     files={"schema.sql": EMP_SQL}, setup=["sqlite3 hr.db < schema.sql", "rm schema.sql"],
     packages=["sqlite3"],
     solve="sqlite3 -separator ' ' /app/hr.db 'SELECT dept, CAST(round(avg(salary)) AS INTEGER) "
           "FROM employees GROUP BY dept ORDER BY dept' > /app/report.txt",
     check="same /app/report.txt /tests/expected/report.txt",
     expected={"report.txt": report},
     wrong=["sqlite3 -separator ' ' /app/hr.db 'SELECT dept, max(salary) FROM employees GROUP "
            "BY dept ORDER BY dept' > /app/report.txt"])

# ---------------------------------------------------------------- archives, permissions --

task(name="extract-tarball", split="train", difficulty="easy", category="archives",
     instruction="Extract the archive /app/data.tar.gz into the folder /app/out (create it).",
     files={"src/data/readme.txt": "payload v3 9f2c\n", "src/data/sub/n.csv": "a,b\n1,2\n"},
     setup=["tar -czf data.tar.gz -C src data", "rm -rf src"],
     solve="mkdir -p /app/out && tar -xzf /app/data.tar.gz -C /app/out",
     check="[ \"$(cat /app/out/data/readme.txt)\" = 'payload v3 9f2c' ]\n"
           "[ \"$(cat /app/out/data/sub/n.csv | tail -1)\" = 1,2 ]",
     wrong=["mkdir -p /app/out/data"])

task(name="create-tarball", split="train", difficulty="easy", category="archives",
     instruction="Create the gzip-compressed tar archive /app/docs.tar.gz holding the folder "
                 "docs (paths in the archive start with docs/).",
     files={"docs/a.md": "# A 5512\n", "docs/guide/b.md": "# B 7781\n"},
     solve="cd /app && tar -czf docs.tar.gz docs",
     check="mkdir -p /tmp/x && tar -xzf /app/docs.tar.gz -C /tmp/x\n"
           "[ \"$(cat /tmp/x/docs/a.md)\" = '# A 5512' ]\n"
           "[ \"$(cat /tmp/x/docs/guide/b.md)\" = '# B 7781' ]",
     wrong=["cd /app && tar -czf docs.tar.gz docs/a.md"])

task(name="zip-logs", split="test", difficulty="easy", category="archives",
     instruction="Create /app/logs.zip containing every file of the folder /app/logs (paths in "
                 "the zip start with logs/).",
     files={f"logs/day{i}.log": f"day {i} ok {i * 37}\n" for i in range(1, 5)},
     packages=["zip", "unzip"],
     solve="cd /app && zip -qr logs.zip logs",
     check="cd /tmp && unzip -q /app/logs.zip -d /tmp/z\n"
           + "\n".join(f"[ \"$(cat /tmp/z/logs/day{i}.log)\" = 'day {i} ok {i * 37}' ]"
                       for i in range(1, 5)),
     wrong=["cd /app && zip -qr logs.zip logs/day1.log"])

r = rng("find-in-archive")
members = {f"bundle/part{i}/{r.choice(WORDS)}{i}.txt": f"{r.choice(WORDS)} text\n"
           for i in range(8)}
needle = sorted(members)[5]
members[needle] = "here is the needle-7731 you want\n"
task(name="find-in-archive", split="train", difficulty="medium", category="archives",
     instruction="One file inside the tar archive /app/bundle.tar contains the text "
                 "needle-7731. Write its path as listed in the archive to /app/answer.txt.",
     files={f"src/{k}": v for k, v in members.items()},
     setup=["tar -cf bundle.tar -C src bundle", "rm -rf src"],
     solve="mkdir -p /tmp/b && tar -xf /app/bundle.tar -C /tmp/b && cd /tmp/b && "
           "grep -rl needle-7731 . | sed 's|^\\./||' > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{needle}" ]',
     wrong=["tar -tf /app/bundle.tar | head -1 > /app/answer.txt"])

task(name="chmod-scripts", split="train", difficulty="easy", category="permissions",
     instruction="Make every .sh file under /app/bin executable (mode 755) and every other "
                 "file there not executable (mode 644).",
     files={"bin/start.sh": "#!/bin/sh\necho start\n", "bin/stop.sh": "#!/bin/sh\necho stop\n",
            "bin/tools/sync.sh": "#!/bin/sh\necho sync\n", "bin/notes.txt": "notes\n",
            "bin/tools/conf.ini": "[x]\n"},
     setup=["chmod 644 bin/*.sh bin/tools/*.sh", "chmod 755 bin/notes.txt"],
     solve="find /app/bin -type f -name '*.sh' -exec chmod 755 {} + && "
           "find /app/bin -type f ! -name '*.sh' -exec chmod 644 {} +",
     check="cd /app/bin\nfor f in start.sh stop.sh tools/sync.sh; do "
           "[ \"$(stat -c %a $f)\" = 755 ]; done\n"
           "for f in notes.txt tools/conf.ini; do [ \"$(stat -c %a $f)\" = 644 ]; done",
     wrong=["chmod -R 755 /app/bin", "chmod 755 /app/bin/*.sh"])

task(name="secure-key-perms", split="test", difficulty="easy", category="permissions",
     instruction="Lock down /app/secrets: the folder must have mode 700 and every file in it "
                 "mode 600.",
     files={"secrets/key.pem": "-----KEY-----\n", "secrets/token": "t0k3n\n"},
     setup=["chmod 755 secrets", "chmod 644 secrets/*"],
     solve="chmod 700 /app/secrets && chmod 600 /app/secrets/*",
     check="[ \"$(stat -c %a /app/secrets)\" = 700 ]\n"
           "[ \"$(stat -c %a /app/secrets/key.pem)\" = 600 ]\n"
           "[ \"$(stat -c %a /app/secrets/token)\" = 600 ]\n"
           "[ \"$(cat /app/secrets/token)\" = t0k3n ]",
     wrong=["chmod 700 /app/secrets", "rm -rf /app/secrets && mkdir -m 700 /app/secrets"])

task(name="gzip-old-logs", split="train", difficulty="medium", category="archives",
     instruction="Compress every .log file in /app/logs with gzip (leaving NAME.log.gz in place "
                 "of NAME.log), except current.log, which must stay as it is.",
     files={**{f"logs/app-{i}.log": f"log {i} {'x' * i}\n" for i in range(1, 5)},
            "logs/current.log": "live\n"},
     solve="cd /app/logs && for f in *.log; do [ \"$f\" = current.log ] || gzip \"$f\"; done",
     check="cd /app/logs\nfor i in 1 2 3 4; do [ ! -e app-$i.log ]; "
           "zcat app-$i.log.gz | grep -q \"^log $i \"; done\n[ \"$(cat current.log)\" = live ]",
     wrong=["cd /app/logs && gzip *.log"])

task(name="nested-archive", split="train", difficulty="hard", category="archives",
     instruction="/app/outer.tar.gz contains a zip file, which contains secret.txt. Write the "
                 "content of secret.txt to /app/answer.txt.",
     files={"src/secret.txt": "opal-4417-quartz\n", "src/decoy.txt": "not this\n"},
     packages=["zip", "unzip"],
     setup=["cd src && zip -q ../inner.zip secret.txt decoy.txt && cd ..",
            "tar -czf outer.tar.gz inner.zip", "rm -rf src inner.zip"],
     solve="mkdir -p /tmp/n && tar -xzf /app/outer.tar.gz -C /tmp/n && "
           "unzip -p /tmp/n/inner.zip secret.txt > /app/answer.txt",
     check='[ "$(ans /app/answer.txt)" = "opal-4417-quartz" ]',
     wrong=["echo 'not this' > /app/answer.txt"])

task(name="symlink-current", split="test", difficulty="easy", category="files",
     instruction="Point the release link: create the symbolic link /app/current that points to "
                 "/app/releases/v3 (replace it if it exists).",
     files={f"releases/v{i}/VERSION": f"{i}\n" for i in range(1, 4)},
     setup=["ln -s /app/releases/v2 current"],
     solve="ln -sfn /app/releases/v3 /app/current",
     check="[ -L /app/current ]\n[ \"$(cat /app/current/VERSION)\" = 3 ]",
     wrong=["rm /app/current && cp -r /app/releases/v3 /app/current"])

task(name="disk-usage-top", split="train", difficulty="medium", category="files",
     instruction="Which immediate subfolder of /app/data uses the most bytes (sum of its file "
                 "sizes)? Write its name to /app/answer.txt.",
     files={**{f"data/alpha/f{i}": "a" * 300 for i in range(5)},
            **{f"data/beta/f{i}": "b" * 900 for i in range(2)},
            **{f"data/gamma/f{i}": "c" * 100 for i in range(9)}},
     solve="cd /app/data && for d in */; do echo \"$(cat \"$d\"* | wc -c) ${d%/}\"; done "
           "| sort -rn | head -1 | awk '{print $2}' > /app/answer.txt",
     check='[ "$(ans /app/answer.txt)" = "beta" ]',
     wrong=["ls /app/data | head -1 > /app/answer.txt",
            "cd /app/data && for d in */; do echo \"$(ls $d | wc -l) ${d%/}\"; done | sort -rn "
            "| head -1 | awk '{print $2}' > /app/answer.txt"])

# ---------------------------------------------------------------- builds -----------------

HELLO_C = "#include <stdio.h>\nint main(void) { printf(\"hello build %d\\n\", 6 * 7); return 0; }\n"
task(name="make-build", split="train", difficulty="easy", category="build",
     instruction="/app/hello has a C program and a Makefile. Build it so that the binary "
                 "/app/hello/hello exists and runs.",
     files={"hello/hello.c": HELLO_C,
            "hello/Makefile": "hello: hello.c\n\tcc -O1 -o hello hello.c\n"},
     packages=["make", "gcc", "libc6-dev"],
     solve="make -C /app/hello",
     check='[ "$(timeout 10 /app/hello/hello)" = "hello build 42" ]',
     wrong=["printf '#!/bin/sh\\necho hello build 42\\n' > /app/hello/hello"])

task(name="fix-makefile-tabs", split="test", difficulty="medium", category="build",
     instruction="make fails in /app/calc (\"missing separator\"). Fix the Makefile, then build "
                 "the program calc.",
     files={"calc/calc.c": "#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) "
                           "{ printf(\"%d\\n\", atoi(v[1]) * atoi(v[2])); return 0; }\n",
            "calc/Makefile": "calc: calc.c\n    cc -o calc calc.c\n"},
     packages=["make", "gcc", "libc6-dev"],
     solve="sed -i 's/^    /\\t/' /app/calc/Makefile && make -C /app/calc",
     check='[ "$(timeout 10 /app/calc/calc 13 17)" = 221 ]\n'
           "make -C /app/calc -q calc",
     wrong=["printf 'calc:\\n\\ttrue\\n' > /app/calc/Makefile"])

task(name="fix-c-compile", split="train", difficulty="medium", category="build",
     instruction="/app/wc/count.c does not compile. Fix it and build /app/wc/count with "
                 "cc -o count count.c; count WORD prints the length of WORD.",
     files={"wc/count.c": "#include <stdio.h>\nint main(int argc, char **argv) {\n"
                          "  if (argc < 2) return 1;\n  printf(\"%zu\\n\", strlen(argv[1]))\n"
                          "  return 0;\n}\n"},
     packages=["gcc", "libc6-dev"],
     solve="cd /app/wc && sed -i 's/^#include <stdio.h>$/#include <stdio.h>\\n#include "
           "<string.h>/' count.c && sed -i 's/strlen(argv\\[1\\]))$/strlen(argv[1]));/' count.c "
           "&& cc -o count count.c",
     check='[ "$(timeout 10 /app/wc/count abcdefghijk)" = 11 ]\n'
           '[ "$(timeout 10 /app/wc/count xy)" = 2 ]',
     wrong=["printf '#!/bin/sh\\necho 11\\n' > /app/wc/count && chmod +x /app/wc/count"])

task(name="write-makefile", split="train", difficulty="hard", category="build",
     instruction="Write /app/proj/Makefile so that `make` builds the program app from main.c and "
                 "sq.c (through main.o and sq.o) and `make clean` removes app and the .o files.",
     files={"proj/main.c": "#include <stdio.h>\nint sq(int);\nint main(void) { printf(\"%d\\n\", "
                           "sq(12)); return 0; }\n",
            "proj/sq.c": "int sq(int x) { return x * x; }\n"},
     packages=["make", "gcc", "libc6-dev"],
     solve="printf 'app: main.o sq.o\\n\\tcc -o app main.o sq.o\\n\\n%%.o: %%.c\\n\\tcc -c -o $@ $<"
           "\\n\\nclean:\\n\\trm -f app *.o\\n' > /app/proj/Makefile && make -C /app/proj",
     check="cp -r /app/proj /tmp/p && cd /tmp/p\nmake clean >/dev/null\n[ ! -e app ]\n"
           "[ ! -e main.o ]\nmake >/dev/null\n[ \"$(./app)\" = 144 ]\n[ -f main.o ] && [ -f sq.o ]"
           "\nmake clean >/dev/null\n[ ! -e app ] && [ ! -e sq.o ]",
     wrong=["cd /app/proj && cc -o app main.c sq.c"])

# ---------------------------------------------------------------- service configuration --

task(name="json-config-edit", split="train", difficulty="easy", category="config",
     instruction="In /app/config.json set \"debug\" to false and \"workers\" to 4, keeping every "
                 "other setting unchanged.",
     files={"config.json": _json.dumps({"name": "api", "debug": True, "workers": 1,
                                        "db": {"host": "db1", "port": 5432}}, indent=2) + "\n"},
     packages=["jq"],
     solve="jq '.debug = false | .workers = 4' /app/config.json > /tmp/c && "
           "cat /tmp/c > /app/config.json",
     check="py <<'PY'\nimport json\nc = json.load(open('/app/config.json'))\n"
           "assert c == {'name': 'api', 'debug': False, 'workers': 4, "
           "'db': {'host': 'db1', 'port': 5432}}, c\nPY",
     wrong=["echo '{\"debug\": false, \"workers\": 4}' > /app/config.json"])

task(name="crontab-entry", split="test", difficulty="easy", category="config",
     instruction="Write /app/crontab.txt with one crontab line that runs /app/backup.sh every "
                 "day at 02:30.",
     solve="echo '30 2 * * * /app/backup.sh' > /app/crontab.txt",
     check="grep -v '^#' /app/crontab.txt | grep -v '^$' > /tmp/c\n[ \"$(wc -l < /tmp/c)\" = 1 ]"
           "\nread -r m h dom mon dow cmd < /tmp/c\n[ \"$m\" = 30 ]\n"
           "[ \"$h\" = 2 -o \"$h\" = 02 ]"
           "\n[ \"$dom $mon $dow\" = '* * *' ]\n[ \"$cmd\" = /app/backup.sh ]",
     wrong=["echo '2 30 * * * /app/backup.sh' > /app/crontab.txt"])

task(name="systemd-unit", split="train", difficulty="medium", category="config",
     instruction="Write the systemd unit /app/myapp.service: description \"My app\", it runs "
                 "/usr/bin/python3 /app/server.py as user app, restarts on failure, and is "
                 "wanted by multi-user.target.",
     solve="printf '[Unit]\\nDescription=My app\\n\\n[Service]\\nExecStart=/usr/bin/python3 "
           "/app/server.py\\nUser=app\\nRestart=on-failure\\n\\n[Install]\\n"
           "WantedBy=multi-user.target\\n' > /app/myapp.service",
     check="py <<'PY'\nimport configparser\nc = configparser.ConfigParser(strict=False, "
           "interpolation=None)\nc.optionxform = str\nc.read('/app/myapp.service')\n"
           "assert c['Unit']['Description'] == 'My app'\n"
           "assert c['Service']['ExecStart'] == '/usr/bin/python3 /app/server.py'\n"
           "assert c['Service']['User'] == 'app'\nassert c['Service']['Restart'] == 'on-failure'\n"
           "assert c['Install']['WantedBy'] == 'multi-user.target'\nPY",
     wrong=["printf '[Service]\\nExecStart=/usr/bin/python3 /app/server.py\\n' > "
            "/app/myapp.service"])

SERVER = """import configparser, socket, sys
c = configparser.ConfigParser()
if not c.read('/app/server.ini'):
    sys.exit('no /app/server.ini')
s = c['server']
host, port = s.get('host'), s.getint('port')
token = s.get('token', '')
if token != open('/app/token.txt').read().strip():
    sys.exit('bad token')
srv = socket.socket()
srv.bind((host, port))
srv.listen(1)
cli = socket.create_connection((host, port))
conn, _ = srv.accept()
cli.sendall(b'ping')
print('serving on', host, port, conn.recv(4).decode())
"""
task(name="configure-service", split="train", difficulty="hard", category="config",
     instruction="The service /app/server.py reads /app/server.ini. Write that file so the "
                 "service starts: a [server] section with host 127.0.0.1, port 8099 and token "
                 "set to the content of /app/token.txt. Check with python3 /app/server.py.",
     files={"server.py": SERVER, "token.txt": "tk-5521-zz\n"},
     solve="printf '[server]\\nhost = 127.0.0.1\\nport = 8099\\ntoken = %s\\n' "
           "\"$(cat /app/token.txt)\" > /app/server.ini && python3 /app/server.py",
     check="cp /app/server.ini /tmp/s.ini\n"
           "timeout 10 python3 /tests/expected/server.py "
           "| grep -qx 'serving on 127.0.0.1 8099 ping'",
     expected={"server.py": SERVER.replace("open('/app/token.txt').read().strip()",
                                           "'tk-5521-zz'")},
     wrong=["printf '[server]\\nhost = 127.0.0.1\\nport = 8099\\n' > /app/server.ini"])

task(name="env-file", split="train", difficulty="easy", category="config",
     instruction="Create /app/.env with the lines DB_HOST=db.internal, DB_PORT=5433 and "
                 "DB_NAME set to the database name written in /app/dbname.txt.",
     files={"dbname.txt": "orders_prod_19\n"},
     solve="printf 'DB_HOST=db.internal\\nDB_PORT=5433\\nDB_NAME=%s\\n' \"$(cat /app/dbname.txt)\""
           " > /app/.env",
     check="[ \"$( (set -a; . /app/.env >/dev/null 2>&1; printf '%s|%s|%s' \"$DB_HOST\" "
           "\"$DB_PORT\" \"$DB_NAME\") )\" = 'db.internal|5433|orders_prod_19' ]",
     wrong=["printf 'DB_HOST=db.internal\\nDB_PORT=5433\\n' > /app/.env"])

task(name="ini-merge", split="test", difficulty="medium", category="config",
     instruction="Merge /app/override.ini into /app/base.ini: every key of override.ini replaces "
                 "or adds the same key in the same section of base.ini. Write the result to "
                 "/app/merged.ini (any key order).",
     files={"base.ini": "[db]\nhost = a\nport = 1\n\n[cache]\nttl = 60\n",
            "override.ini": "[db]\nport = 2\nuser = svc\n\n[log]\nlevel = warn\n"},
     solve="python3 - <<'PY'\nimport configparser\nc = configparser.ConfigParser()\n"
           "c.read(['/app/base.ini', '/app/override.ini'])\n"
           "c.write(open('/app/merged.ini', 'w'))\nPY",
     check="py <<'PY'\nimport configparser\nc = configparser.ConfigParser()\n"
           "assert c.read('/app/merged.ini')\n"
           "got = {s: dict(c[s]) for s in c.sections()}\n"
           "assert got == {'db': {'host': 'a', 'port': '2', 'user': 'svc'}, "
           "'cache': {'ttl': '60'}, 'log': {'level': 'warn'}}, got\nPY",
     wrong=["cp /app/base.ini /app/merged.ini", "cp /app/override.ini /app/merged.ini"])

# ---------------------------------------------------------------- a few more text tasks --

r = rng("csv-max-row")
rows = [(f"city{i}", r.randint(1000, 90000)) for i in range(25)]
rows[7] = ("ninetown", 99000)  # the largest as text, not as a number
rows[17] = ("capital", 1200000)
task(name="csv-max-row", split="train", difficulty="easy", category="text",
     instruction="/app/cities.csv has a header and the columns city,population. Write the city "
                 "with the largest population to /app/answer.txt.",
     files={"cities.csv": "city,population\n" + "".join(f"{c},{p}\n" for c, p in rows)},
     solve="tail -n +2 /app/cities.csv | sort -t, -k2,2nr | head -1 | cut -d, -f1 "
           "> /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{max(rows, key=lambda x: x[1])[0]}" ]',
     wrong=["tail -n +2 /app/cities.csv | sort -t, -k2,2r | head -1 | cut -d, -f1 "
            "> /app/answer.txt"])

r = rng("hex-decode")
secret = f"code-{r.randint(1000, 9999)}-{r.choice(WORDS)}"
task(name="decode-base64", split="train", difficulty="easy", category="text",
     instruction="/app/message.b64 holds base64-encoded text. Decode it and write the text to "
                 "/app/answer.txt.",
     files={"message.b64": __import__("base64").b64encode(secret.encode()).decode() + "\n"},
     solve="base64 -d /app/message.b64 > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{secret}" ]',
     wrong=["cp /app/message.b64 /app/answer.txt"])

r = rng("checksum-match")
blobs = {f"files/blob{i}.dat": f"{r.random()}\n" for i in range(10)}
target = sorted(blobs)[6]
import hashlib as _hashlib  # noqa: E402

digest = _hashlib.sha256(blobs[target].encode()).hexdigest()
task(name="checksum-match", split="test", difficulty="medium", category="files",
     instruction=f"Which file under /app/files has the SHA-256 checksum {digest}? Write its "
                 "file name (like blob1.dat) to /app/answer.txt.",
     files=blobs,
     solve=f"cd /app/files && sha256sum * | grep {digest} | awk '{{print $2}}' > /app/answer.txt",
     check=f'[ "$(ans /app/answer.txt)" = "{target.split("/")[-1]}" ]',
     wrong=["ls /app/files | head -1 > /app/answer.txt"])

r = rng("fix-permissions-exec")
task(name="run-script-output", split="train", difficulty="easy", category="files",
     instruction="Run the program /app/tool/gen.py with python3 and save everything it prints "
                 "to /app/output.txt.",
     files={"tool/gen.py": "import hashlib\nfor i in range(5):\n"
                           "    print(i, hashlib.md5(str(i * 7919).encode()).hexdigest()[:8])\n"},
     solve="python3 /app/tool/gen.py > /app/output.txt",
     check="same /app/output.txt /tests/expected/output.txt",
     expected={"output.txt": "".join(
         f"{i} {_hashlib.md5(str(i * 7919).encode()).hexdigest()[:8]}\n" for i in range(5))},
     wrong=["head -3 /dev/null > /app/output.txt"])

r = rng("split-file")
lines = [f"record {i} {r.choice(WORDS)}" for i in range(1, 31)]
task(name="split-file", split="train", difficulty="medium", category="files",
     instruction="Split /app/records.txt into files of 10 lines each, named /app/parts/part1.txt, "
                 "part2.txt, ... in order.",
     files={"records.txt": "\n".join(lines) + "\n"},
     solve="mkdir -p /app/parts && cd /app/parts && split -l 10 -d -a 1 /app/records.txt part "
           "&& for f in part?; do mv \"$f\" \"part$(( ${f#part} + 1 )).txt\"; done",
     check="\n".join(f"[ \"$(head -1 /app/parts/part{k}.txt)\" = '{lines[(k - 1) * 10]}' ] && "
                     f"[ \"$(wc -l < /app/parts/part{k}.txt)\" = 10 ]" for k in (1, 2, 3))
           + "\n[ ! -e /app/parts/part4.txt ]",
     wrong=["mkdir -p /app/parts && cp /app/records.txt /app/parts/part1.txt"])

# ---------------------------------------------------------------- a multi-step task ------

MULTI = dict(
    name="notes-two-steps", split="train", difficulty="medium", category="files",
    steps=[
        dict(name="01-create", instruction="Create /app/notes.txt whose only line is "
                                            "\"alpha 31\".",
             solve="echo 'alpha 31' > /app/notes.txt",
             check="[ \"$(cat /app/notes.txt)\" = 'alpha 31' ]"),
        dict(name="02-append", instruction="Append the line \"beta 62\" to /app/notes.txt "
                                            "(keep the first line).",
             solve="echo 'beta 62' >> /app/notes.txt",
             check="[ \"$(cat /app/notes.txt)\" = \"$(printf 'alpha 31\\nbeta 62')\" ]"),
    ],
)


# ---------------------------------------------------------------- writing ---------------

def dockerfile(spec: dict) -> str:
    lines = ["FROM debian:bookworm-slim"]
    if spec["packages"]:
        pkgs = " ".join(sorted(set(spec["packages"])))
        lines.append("RUN apt-get update && apt-get install -y --no-install-recommends "
                     f"{pkgs} && rm -rf /var/lib/apt/lists/*")
    lines.append("WORKDIR /app")
    if spec["files"]:
        lines.append("COPY files/ /app/")
    if spec["setup"]:  # one RUN: a `cd` carries over to the next command, as in a script
        lines.append("RUN " + " && \\\n    ".join(spec["setup"]))
    return "\n".join(lines) + "\n"


def toml(spec: dict, steps: list[dict] | None = None) -> str:
    out = ['version = "1.0"', "", "[metadata]", 'author_name = "agentgym"',
           f'difficulty = "{spec["difficulty"]}"', f'category = "{spec["category"]}"',
           f'tags = ["{spec["category"]}", "agentgym"]', f'split = "{spec["split"]}"', "",
           "[verifier]", "timeout_sec = 60.0", "", "[agent]", "timeout_sec = 600.0", "",
           "[environment]", "build_timeout_sec = 600.0", "cpus = 1", "memory_mb = 1024",
           "storage_mb = 1024"]
    if steps:
        out.insert(1, 'multi_step_reward_strategy = "mean"')
        for s in steps:
            out += ["", "[[steps]]", f'name = "{s["name"]}"']
    return "\n".join(out) + "\n"


def strict(check: str) -> str:
    """``check`` with every test on its own line: ``set -e`` ignores a failure inside an
    ``a && b`` list and under ``!``, so ``[ x ] && [ y ]`` becomes two lines and ``! cmd`` an
    explicit ``if``."""
    out = []
    for line in check.replace("] && [", "]\n[").splitlines():
        if line.startswith("! "):
            line = f"if {line[2:]}; then exit 1; fi"
        out.append(line)
    return "\n".join(out)


def write(path: Path, content: str | bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    path.chmod(mode)


def write_task(out: Path, spec: dict) -> None:
    folder = out / spec["name"]
    for rel, content in spec["files"].items():
        write(folder / "environment" / "files" / rel, content)
    write(folder / "environment" / "Dockerfile", dockerfile(spec))
    steps = spec.get("steps")
    write(folder / "task.toml", toml(spec, steps))
    for rel, content in spec["expected"].items():
        write(folder / "tests" / "expected" / rel, content)
    if steps:
        write(folder / "tests" / "test.sh", TEST_SH, 0o755)
        for s in steps:
            base = folder / "steps" / s["name"]
            write(base / "instruction.md", s["instruction"] + "\n")
            write(base / "tests" / "check.sh", CHECK_LIB + strict(s["check"]) + "\n")
            write(base / "solution" / "solve.sh", "#!/bin/bash\nset -e\ncd /app\n" + s["solve"]
                  + "\n", 0o755)
        return
    write(folder / "instruction.md", textwrap.fill(spec["instruction"], 90) + "\n")
    write(folder / "tests" / "test.sh", TEST_SH, 0o755)
    write(folder / "tests" / "check.sh", CHECK_LIB + strict(spec["check"]) + "\n")
    write(folder / "solution" / "solve.sh", "#!/bin/bash\nset -e\ncd /app\n" + spec["solve"]
          + "\n", 0o755)
    if spec["wrong"]:
        # Not part of Harbor's layout: answers that must score 0 (tests/envs/terminal reads them).
        write(folder / "wrong_answers.json", _json.dumps(spec["wrong"], indent=1) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    if out.exists():
        shutil.rmtree(out)
    names = [t["name"] for t in TASKS] + [MULTI["name"]]
    assert len(names) == len(set(names)), "duplicate task names"
    for spec in TASKS:
        write_task(out, spec)
    multi = {"files": {}, "setup": [], "expected": {}, "packages": [], "wrong": [], **MULTI}
    write_task(out, multi)
    splits = {s: sum(t["split"] == s for t in [*TASKS, MULTI]) for s in ("train", "test")}
    sys.stdout.write(f"wrote {len(names)} tasks to {out} ({splits})\n")


if __name__ == "__main__":
    main()
