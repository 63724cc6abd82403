"""The hostile-code corpus: programs that try to break out of, exhaust or outlive a sandbox.

Each :class:`Hostile` names the statuses it may end with and what must hold afterwards.
Placeholders ``$canary`` (a host file path), ``$port`` (a host TCP listener on 127.0.0.1),
``$hostpid`` (the test process) and ``$marker`` (a number used in leftover processes' argv) are
filled in by the test. Probes print ``ESCAPED`` if a forbidden action works, and exit non-zero
when everything was blocked, so a clean run is a clear failure of the attack.
"""

from __future__ import annotations

from dataclasses import dataclass

TIMEOUT = {"timeout"}
FAILED = {"error"}


@dataclass(frozen=True)
class Hostile:
    """One hostile program."""

    name: str
    code: str
    statuses: frozenset[str]
    command: tuple[str, ...] = ()
    """Run this argv instead of ``code`` with run_python."""
    needs_total_memory_cap: bool = False
    truncated: bool = False
    fast: bool = False
    """Must fail within a second (e.g. no network route: no waiting for a connect timeout)."""
    timeout_s: float = 2.0
    """Time limit; longer for programs that must reach a memory limit or finish a big write."""


PROBE = """
import os, sys, socket, ctypes, errno
blocked = []
def attempt(what, fn):
    try:
        fn()
    except BaseException as e:
        blocked.append(what)
        print("blocked", what, type(e).__name__, getattr(e, "errno", ""))
    else:
        print("ESCAPED", what)
"""
PROBE_END = "\nsys.exit('all %d attempts blocked' % len(blocked))\n"


def probe(body: str) -> str:
    """A probe program: ``attempt(name, fn)`` calls in ``body``, then exit non-zero."""
    return PROBE + body + PROBE_END


def _read(path: str) -> str:
    return f"lambda: print(open({path!r}, 'rb').read()[:200])"


PROGRAMS: list[Hostile] = [
    Hostile(
        "fork_bomb",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        frozenset({"timeout", "error", "memory"}),
    ),
    Hostile(
        "fork_bomb_shell",
        "",
        frozenset({"timeout", "error"}),
        command=("bash", "-c", ":(){ :|:& };:; sleep 100"),
    ),
    Hostile("memory_bomb", "x = bytearray(8 << 30)\nprint('ESCAPED')", frozenset({"memory"})),
    Hostile(
        "memory_creep",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))",
        frozenset({"memory"}),
        timeout_s=10.0,
    ),
    Hostile(
        "memory_fork_bomb",
        "import os, time\npids = []\nfor _ in range(6):\n    pid = os.fork()\n"
        "    if pid == 0:\n        b = bytearray(300 << 20)\n"
        "        for i in range(0, len(b), 4096):\n            b[i] = 1\n"
        "        time.sleep(2)\n        os._exit(0)\n    pids.append(pid)\n"
        "codes = [os.waitpid(p, 0)[1] for p in pids]\nprint(codes)",
        frozenset({"memory"}),
        needs_total_memory_cap=True,
        timeout_s=10.0,
    ),
    Hostile("infinite_loop", "while True:\n    pass", frozenset(TIMEOUT)),
    Hostile(
        "busy_threads",
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "for _ in range(16):\n    threading.Thread(target=spin).start()",
        frozenset(TIMEOUT),
    ),
    Hostile(
        "busy_processes",
        "import os\nfor _ in range(8):\n    if os.fork() == 0:\n"
        "        while True:\n            pass\nwhile True:\n    pass",
        frozenset(TIMEOUT),
    ),
    Hostile("sleep_forever", "import time\ntime.sleep(10 ** 6)", frozenset(TIMEOUT)),
    Hostile(
        "net_loopback_to_host",
        probe(
            "attempt('connect host port', lambda: socket.create_connection("
            "('127.0.0.1', $port), timeout=1))"
        ),
        frozenset(FAILED),
        fast=True,
    ),
    Hostile(
        "net_external_ip",
        probe(
            "attempt('tcp 1.1.1.1', lambda: socket.create_connection(('1.1.1.1', 53), "
            "timeout=5))\nattempt('tcp 8.8.8.8', lambda: socket.create_connection("
            "('8.8.8.8', 443), timeout=5))\nattempt('udp', lambda: socket.socket("
            "socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('9.9.9.9', 53)))"
        ),
        frozenset(FAILED),
        fast=True,
    ),
    Hostile(
        "net_dns",
        probe("attempt('dns', lambda: socket.getaddrinfo('example.com', 80))"),
        frozenset(FAILED),
        fast=True,
    ),
    Hostile(
        "write_outside_workdir",
        probe(
            "for p in ('/usr/evil', '/etc/evil', '/evil', '/root/evil', '$canary',"
            " '/proc/sys/kernel/hostname', '/sys/kernel/evil'):\n"
            "    attempt('write ' + p, lambda p=p: open(p, 'w').write('pwned'))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "read_host_files",
        probe(
            "for p in ('/etc/shadow', '/root/.bashrc', '$canary', '/proc/$hostpid/environ',"
            " '/var/run/docker.sock'):\n"
            "    attempt('read ' + p, lambda p=p: print(open(p, 'rb').read()[:200]))\n"
            "attempt('list /root', lambda: print(os.listdir('/root')))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "env_secrets",
        "import os, sys\nprint(dict(os.environ))\n"
        "sys.exit(0 if 'CANARY' in str(os.environ) else 'no secret found')",
        frozenset(FAILED),
    ),
    Hostile(
        "proc_escape",
        probe(
            "attempt('/proc/1/root canary', " + _read("/proc/1/root$canary") + ")\n"
            "attempt('/proc/1/root shadow', " + _read("/proc/1/root/etc/shadow") + ")\n"
            "attempt('/proc/self/root/../../canary', "
            + _read("/proc/self/root/../..$canary")
            + ")\nattempt('overwrite /proc/self/exe', lambda: open('/proc/self/exe', 'r+b'))\n"
            "attempt('overwrite /proc/1/exe', lambda: open('/proc/1/exe', 'r+b'))\n"
            "attempt('/proc/$hostpid', lambda: print(os.listdir('/proc/$hostpid/root')))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "fill_disk",
        "n = 0\nwhile True:\n    with open(f'f{n}', 'wb') as f:\n"
        "        f.write(b'x' * (8 << 20))\n    n += 1",
        frozenset(FAILED),
    ),
    Hostile(
        "fill_tmp",
        "n = 0\nwhile True:\n    with open(f'/tmp/f{n}', 'wb') as f:\n"
        "        f.write(b'x' * (8 << 20))\n    n += 1",
        frozenset(FAILED),
    ),
    Hostile(
        "large_file",
        "with open('big', 'wb') as f:\n    for _ in range(64):\n"
        "        f.write(b'x' * (1 << 20))\nprint('ESCAPED')",
        frozenset(FAILED),
    ),
    Hostile(
        "huge_output", "while True:\n    print('x' * 1000)", frozenset(TIMEOUT), truncated=True
    ),
    Hostile(
        "huge_stderr",
        "import sys\nwhile True:\n    sys.stderr.write('e' * 1000)",
        frozenset(TIMEOUT),
        truncated=True,
    ),
    Hostile(
        "huge_single_write",
        "import sys\nsys.stdout.write('x' * (100 << 20))",
        frozenset({"ok"}),
        truncated=True,
        timeout_s=10.0,
    ),
    Hostile(
        "kill_parent",
        "import os, time\nos.kill(os.getppid(), 9)\ntime.sleep(1)",
        frozenset({"error", "ok"}),
    ),
    Hostile(
        "kill_everything",
        "import os, time\nfor pid in (1, -1):\n    try:\n"
        "        os.kill(pid, 9)\n    except OSError as e:\n        print(pid, e)\n"
        "time.sleep(0.5)\nraise SystemExit(1)",
        frozenset(FAILED),
    ),
    Hostile(
        "kill_host_process",
        probe("attempt('kill host', lambda: os.kill($hostpid, 15))"),
        frozenset(FAILED),
    ),
    Hostile(
        "zombies",
        "import os\nfor _ in range(20):\n    if os.fork() == 0:\n"
        "        os._exit(0)\nprint('made zombies')",
        frozenset({"ok"}),
    ),
    Hostile(
        "orphan_daemon",
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
        "    if os.fork() == 0:\n        os.execvp('sleep', ['sleep', '$marker'])\n"
        "    os._exit(0)\ntime.sleep(0.2)\nprint('daemon started')",
        frozenset({"ok"}),
    ),
    Hostile(
        "sleeping_child",
        "import subprocess\nsubprocess.Popen(['sleep', '$marker'])\nprint('child started')",
        frozenset({"ok"}),
    ),
    Hostile(
        "setuid",
        probe(
            "attempt('setuid 0', lambda: os.setuid(0))\n"
            "attempt('setgid 0', lambda: os.setgid(0))\n"
            "attempt('chroot', lambda: os.chroot('/tmp'))\n"
            "attempt('hostname', lambda: socket.sethostname('pwned'))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "ptrace",
        probe(
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "def ptrace(pid):\n    if libc.ptrace(16, pid, 0, 0) != 0:\n"
            "        raise OSError(ctypes.get_errno(), 'ptrace failed')\n"
            "attempt('ptrace host', lambda: ptrace($hostpid))\n"
            "attempt('ptrace pid 1', lambda: ptrace(1))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "mount_and_unshare",
        probe(
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "def check(rc):\n    if rc != 0:\n        raise OSError(ctypes.get_errno(), 'failed')\n"
            "os.makedirs('m', exist_ok=True)\n"
            "attempt('mount tmpfs', lambda: check(libc.mount(b'none', b'm', b'tmpfs', 0, None)))\n"
            "attempt('unshare user+mount', lambda: check(libc.unshare(0x10000000 | 0x20000)))\n"
            "attempt('remount /usr rw', lambda: check(libc.mount(None, b'/usr', None,"
            " 32 | 4096, None)))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "devices",
        probe(
            "for p in ('/dev/sda', '/dev/vda', '/dev/mem', '/dev/kmsg',"
            " '/proc/sysrq-trigger'):\n"
            "    attempt('open ' + p, lambda p=p: open(p, 'r+b'))"
        ),
        frozenset(FAILED),
    ),
    Hostile(
        "deep_recursion",
        "import sys\nsys.setrecursionlimit(10 ** 8)\ndef f(n):\n    return f(n + 1) + 1\nf(0)",
        frozenset({"error", "memory", "timeout"}),
    ),
]
