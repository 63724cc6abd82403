"""A task's ``environment/Dockerfile`` as a build plan for the Docker-less (bubblewrap) backend.

The bubblewrap backend has no image: it runs the host's read-only ``/usr`` (a Debian system),
so it can stand in for a plain Debian base and nothing else. The plan keeps what it can honour:

- ``FROM debian[:tag]`` (or a base the caller maps with ``allow_base``), anything else refused
  with a message that names the Docker backend;
- ``WORKDIR`` (the start directory, created), ``ENV``, ``COPY``/``ADD`` of files from the build
  context (no URLs, nothing outside the context);
- ``RUN`` lines, run in order inside the sandbox as the sandbox user without network, except
  package installs: a line made only of ``apt-get update``/``apt-get install PKG...``/``rm -rf
  /var/lib/apt/lists/*`` is kept as a list of packages that the host must have installed (its
  ``/usr`` is the sandbox's), and any other install or download (``pip``, ``curl``...) needs the
  Docker backend;
- ``CMD``, ``ENTRYPOINT``, ``LABEL``, ``EXPOSE``, ``USER``, ``ARG``, ``SHELL``,
  ``HEALTHCHECK``, ``STOPSIGNAL``, ``VOLUME`` and ``ONBUILD`` have no effect on a shell session
  and are skipped.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

from agentgym.errors import TaskError

SKIPPED = {"CMD", "ENTRYPOINT", "LABEL", "EXPOSE", "USER", "ARG", "SHELL", "HEALTHCHECK",
           "STOPSIGNAL", "VOLUME", "ONBUILD", "MAINTAINER"}
_INSTALL = re.compile(r"(^|[;&|(]\s*|\s)(apt-get|apt|apk|yum|dnf|pip3?|uv|conda|npm|curl|wget)"
                      r"(\s|$)")
_DEBIAN = re.compile(r"^(docker\.io/)?(library/)?debian(:[\w.-]+)?(@sha256:[0-9a-f]+)?$")
SYSTEM_DIRS = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev",
               "work", "sys", "var", "run", "boot", "opt", "srv", "mnt", "media", "home"}
"""Top-level directories a bubblewrap task cannot write (the host's, or none at all)."""


@dataclass
class BuildPlan:
    """What the bubblewrap backend does to build a task's starting filesystem."""

    base: str
    workdir: str = "/app"
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    """Absolute path -> content, from ``COPY``/``ADD`` (and ``WORKDIR``'s directories)."""
    run: list[str] = field(default_factory=list)
    """``RUN`` commands, in order, each with the ``WORKDIR`` in force at its line."""
    roots: set[str] = field(default_factory=set)
    """Top-level directories the build writes (persisted between commands)."""
    packages: list[str] = field(default_factory=list)
    """Debian packages of the ``apt-get install`` lines (the host must have them)."""


_APT = re.compile(r"^(apt-get|apt)\s+(-\S+\s+)*(update|install)\b(.*)$")
_APT_CLEAN = re.compile(r"^rm\s+-rf\s+/var/lib/apt/lists/\*?$")


def apt_packages(command: str) -> list[str] | None:
    """The packages of a RUN line made only of apt-get update/install and list cleanup, else
    None."""
    packages: list[str] = []
    saw = False
    for part in (p.strip() for p in command.split("&&")):
        m = _APT.match(part)
        if m:
            saw = True
            if m.group(3) == "install":
                packages += [w for w in m.group(4).split() if not w.startswith("-")]
        elif not _APT_CLEAN.match(part):
            return None
    return packages if saw else None


def logical_lines(text: str) -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` per instruction: comments dropped, ``\\`` continuations
    joined."""
    out: list[tuple[str, str]] = []
    buf = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        if buf.strip():
            word, _, rest = buf.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
        buf = ""
    if buf.strip():
        word, _, rest = buf.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def _root_of(path: str) -> str:
    parts = [p for p in posixpath.normpath(path).split("/") if p]
    if not parts:
        raise TaskError(f"Dockerfile: cannot write to {path!r} on the bubblewrap backend")
    if parts[0] in SYSTEM_DIRS:
        raise TaskError(f"Dockerfile: the bubblewrap backend cannot write under /{parts[0]} "
                        f"({path!r}); use backend='docker'")
    return parts[0]


def _copy(args: str, context: dict[str, bytes], plan: BuildPlan) -> None:
    words = [w for w in shlex.split(args) if not w.startswith("--")]
    if args.lstrip().startswith("["):
        raise TaskError("Dockerfile: COPY in JSON form is not supported by the bubblewrap "
                        "backend")
    if len(words) < 2:
        raise TaskError(f"Dockerfile: COPY needs a source and a destination: {args!r}")
    *sources, dest = words
    if not dest.startswith("/"):
        dest = posixpath.join(plan.workdir, dest)
    for src in sources:
        if "://" in src:
            raise TaskError(f"Dockerfile: ADD of a URL ({src}) needs network; not supported")
        rel = posixpath.normpath(src).lstrip("/")
        rel = "" if rel == "." else rel
        if rel.startswith(".."):
            raise TaskError(f"Dockerfile: COPY source {src!r} is outside the build context")
        if rel in context:  # one file
            target = dest if not dest.endswith("/") and len(sources) == 1 else posixpath.join(
                dest, posixpath.basename(rel))
            plan.files[posixpath.normpath(target)] = context[rel]
            plan.roots.add(_root_of(target))
            continue
        prefix = rel + "/" if rel else ""
        inner = {k[len(prefix):]: v for k, v in context.items() if k.startswith(prefix)}
        if not inner:
            raise TaskError(f"Dockerfile: COPY source {src!r} is not in environment/")
        for name, content in inner.items():
            target = posixpath.normpath(posixpath.join(dest, name))
            plan.files[target] = content
            plan.roots.add(_root_of(target))


def build_plan(dockerfile: str, context: dict[str, bytes],
               allow_base: tuple[str, ...] = ()) -> BuildPlan:
    """The plan for ``dockerfile`` with its build ``context`` (``environment/``'s files).

    Raises :class:`TaskError` for what the bubblewrap backend cannot honour, saying why.
    """
    lines = logical_lines(dockerfile)
    if not lines or lines[0][0] != "FROM":
        raise TaskError("Dockerfile: the first instruction must be FROM")
    base = lines[0][1].split()[0] if lines[0][1] else ""
    if not (_DEBIAN.match(base) or base in allow_base):
        raise TaskError(
            f"Dockerfile: FROM {base} cannot be had without Docker; the bubblewrap backend "
            "stands in only for a plain Debian base (FROM debian:...). Use backend='docker', "
            f"or pass allow_base=({base!r},) to run it on the host's Debian /usr anyway")
    plan = BuildPlan(base=base)
    plan.roots.add("app")
    for word, args in lines[1:]:
        if word == "FROM":
            raise TaskError("Dockerfile: multi-stage builds need the Docker backend")
        if word in SKIPPED:
            continue
        if word == "WORKDIR":
            plan.workdir = posixpath.normpath(posixpath.join(plan.workdir, args.strip()))
            plan.roots.add(_root_of(plan.workdir))
            plan.run.append(f"mkdir -p {shlex.quote(plan.workdir)}")
        elif word == "ENV":
            pairs = shlex.split(args)
            if len(pairs) >= 2 and "=" not in pairs[0]:
                plan.env[pairs[0]] = " ".join(pairs[1:])
            else:
                for pair in pairs:
                    key, eq, value = pair.partition("=")
                    if not eq:
                        raise TaskError(f"Dockerfile: bad ENV {args!r}")
                    plan.env[key] = value
        elif word in ("COPY", "ADD"):
            _copy(args, context, plan)
        elif word == "RUN":
            if args.lstrip().startswith("["):
                args = " ".join(shlex.quote(a) for a in _json_argv(args))
            packages = apt_packages(args)
            if packages is not None:
                plan.packages += packages
                continue
            if _INSTALL.search(args):
                raise TaskError(
                    f"Dockerfile: RUN {args[:80]!r} installs packages or fetches from the "
                    "network: it needs backend='docker', which builds the task's own image")
            plan.run.append(f"cd {shlex.quote(plan.workdir)} && {{ {args}\n}}")
        else:
            raise TaskError(f"Dockerfile: instruction {word} is not supported")
    if plan.workdir == "/app":
        plan.run.insert(0, "mkdir -p /app")
    return plan


def _json_argv(args: str) -> list[str]:
    import json

    try:
        argv = json.loads(args)
    except ValueError as e:
        raise TaskError(f"Dockerfile: bad JSON form {args!r}: {e}") from None
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise TaskError(f"Dockerfile: bad JSON form {args!r}")
    return argv


__all__ = ["BuildPlan", "apt_packages", "build_plan", "logical_lines"]
