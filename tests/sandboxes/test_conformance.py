"""The conformance suite: every backend behaves the same through the Sandbox interface."""

from __future__ import annotations

import asyncio
import json

import pytest

from agentgym.sandbox import RunStatus, Sandbox, SandboxClosed, SandboxLimits

from .conftest import CANARY_ENV, CANARY_SECRET


def test_stdout_stderr_and_exit_code(sandbox: Sandbox) -> None:
    code = "import sys\nprint('to out')\nprint('to err', file=sys.stderr)\nsys.exit(3)"
    result = sandbox.run_python(code)
    assert (result.stdout, result.stderr, result.exit_code) == ("to out\n", "to err\n", 3)
    assert result.status is RunStatus.ERROR
    assert not (result.timed_out or result.memory_killed or result.output_truncated)
    assert result.summary().startswith("Exited with code 3")


def test_success_is_ok(sandbox: Sandbox) -> None:
    result = sandbox.run_python("print(6 * 7)")
    assert result.ok and result.exit_code == 0 and result.stdout == "42\n"
    assert 0 < result.duration_s < 5


def test_plain_command_and_arguments(sandbox: Sandbox) -> None:
    result = sandbox.run(["sh", "-c", 'echo "$0|$1"', "a b", "c"])
    assert result.stdout == "a b|c\n" and result.ok


def test_run_python_arguments(sandbox: Sandbox) -> None:
    result = sandbox.run_python("import sys; print(sys.argv[1:])", args=["x", "--y"])
    assert result.stdout == "['x', '--y']\n"


def test_missing_command_is_an_error_not_an_exception(sandbox: Sandbox) -> None:
    result = sandbox.run(["no-such-program-here"])
    assert result.status is RunStatus.ERROR and result.exit_code == 127


def test_stdin_text_and_bytes(sandbox: Sandbox) -> None:
    code = "import sys; data = sys.stdin.buffer.read(); print(len(data), data[:5])"
    assert sandbox.run_python(code, stdin="héllo").stdout == "6 b'h\\xc3\\xa9ll'\n"
    assert sandbox.run_python(code, stdin=b"\x00\x01\x02").stdout == "3 b'\\x00\\x01\\x02'\n"
    assert sandbox.run_python(code).stdout == "0 b''\n"


def test_large_stdin_while_printing_does_not_deadlock(sandbox: Sandbox) -> None:
    code = "import sys\nprint('x' * 200000)\nprint(len(sys.stdin.buffer.read()))"
    result = sandbox.run_python(
        code, stdin=b"y" * 2_000_000, limits=SandboxLimits(output_bytes=1_000_000)
    )
    assert result.ok and result.stdout.endswith("\n2000000\n")


def test_program_that_ignores_stdin(sandbox: Sandbox) -> None:
    result = sandbox.run_python("print('done')", stdin=b"z" * 3_000_000)
    assert result.ok and result.stdout == "done\n"


def test_files_in_nested_and_importable(sandbox: Sandbox) -> None:
    files = {"pkg/__init__.py": "", "pkg/mod.py": "VALUE = 5\n", "data.bin": bytes(range(256))}
    code = "import pkg.mod\nprint(pkg.mod.VALUE, len(open('data.bin','rb').read()))"
    assert sandbox.run_python(code, files=files).stdout == "5 256\n"


def test_fetch_files_out(sandbox: Sandbox) -> None:
    code = (
        "import os\nos.makedirs('out/deep')\nopen('out/a.txt','w').write('A')\n"
        "open('out/deep/b.bin','wb').write(bytes(range(256)))\nopen('c.txt','w').write('C')"
    )
    result = sandbox.run_python(code, fetch=["out", "c.txt", "missing.txt"])
    assert result.files == {
        "out/a.txt": b"A",
        "out/deep/b.bin": bytes(range(256)),
        "c.txt": b"C",
    }


def test_fetch_does_not_follow_symlinks_out(sandbox: Sandbox) -> None:
    code = "import os\nos.symlink('/etc/passwd', 'link')\nopen('real','w').write('r')"
    result = sandbox.run_python(code, fetch=["link", "real"])
    assert result.files == {"real": b"r"}


def test_shebang_files_are_executable(sandbox: Sandbox) -> None:
    result = sandbox.run(["./hello.sh"], files={"hello.sh": "#!/bin/sh\necho hi\n"})
    assert result.stdout == "hi\n"


def test_each_run_starts_in_a_clean_workdir(sandbox: Sandbox) -> None:
    sandbox.run_python("open('left.txt','w').write('x'); open('/tmp/t.txt','w').write('x')")
    result = sandbox.run_python("import os; print(sorted(os.listdir('.')), os.listdir('/tmp'))")
    assert result.stdout == "['main.py'] []\n"


def test_session_files_are_in_every_run(sandbox: Sandbox) -> None:
    sandbox.put_files({"lib/helper.py": "def f():\n    return 'from session'\n"})
    assert sandbox.get_file("lib/helper.py").startswith(b"def f")
    code = "import sys; sys.path.insert(0, 'lib'); import helper; print(helper.f())"
    assert sandbox.run_python(code).stdout == "from session\n"
    assert sandbox.run_python(code).stdout == "from session\n"
    override = {"lib/helper.py": "def f():\n    return 'per run'\n"}
    assert sandbox.run_python(code, files=override).stdout == "per run\n"
    with pytest.raises(FileNotFoundError):
        sandbox.get_file("nothing.txt")


def test_timeout(sandbox: Sandbox) -> None:
    result = sandbox.run_python(
        "print('started', flush=True)\nimport time\ntime.sleep(30)",
        limits=SandboxLimits(timeout_s=1.0),
    )
    assert result.status is RunStatus.TIMEOUT and result.timed_out
    assert result.exit_code is None and result.stdout == "started\n"
    assert 1.0 <= result.duration_s < 4.0
    assert result.summary().startswith("Timed out after 1.")


def test_output_is_capped(sandbox: Sandbox) -> None:
    code = "import sys\nsys.stdout.write('o' * 300000)\nsys.stderr.write('e' * 300000)"
    result = sandbox.run_python(code, limits=SandboxLimits(output_bytes=1000))
    assert result.ok and result.output_truncated
    assert result.stdout == "o" * 1000 and result.stderr == "e" * 1000
    assert result.summary().endswith("output truncated")


def test_invalid_utf8_output_is_replaced(sandbox: Sandbox) -> None:
    result = sandbox.run_python("import sys; sys.stdout.buffer.write(b'ok\\xff\\xfe')")
    assert result.stdout == "ok\ufffd\ufffd"


def test_environment_is_minimal_and_isolated(sandbox: Sandbox) -> None:
    code = "import json, os; print(json.dumps([dict(os.environ), os.getuid(), os.getgid()]))"
    env, uid, gid = json.loads(sandbox.run_python(code).stdout)
    assert CANARY_ENV not in env and CANARY_SECRET not in json.dumps(env)
    assert (uid, gid) == (65534, 65534)
    assert env["HOME"] == "/tmp" and "/usr/bin" in env["PATH"]
    assert not any(k.startswith(("DOCKER", "SSH", "AWS", "HF_", "OPENAI")) for k in env)


def test_system_is_read_only_and_network_absent(sandbox: Sandbox) -> None:
    code = (
        "import socket\n"
        "for path in ('/usr/x', '/etc/x', '/x'):\n"
        "    try:\n        open(path, 'w')\n        print('wrote', path)\n"
        "    except OSError as e:\n        print(type(e).__name__)\n"
        "s = socket.socket()\ns.settimeout(2)\n"
        "try:\n    s.connect(('1.1.1.1', 53))\n    print('connected')\n"
        "except OSError as e:\n    print('net', e.errno)\n"
    )
    lines = sandbox.run_python(code).stdout.splitlines()
    assert all(line.endswith("Error") for line in lines[:3]), lines
    assert lines[3] in ("net 101", "net 113"), lines  # ENETUNREACH / EHOSTUNREACH


def test_memory_limit(sandbox: Sandbox) -> None:
    result = sandbox.run_python("x = bytearray(2 << 30)\nprint('allocated')")
    assert result.status is RunStatus.MEMORY and result.memory_killed
    assert "allocated" not in result.stdout and result.summary() == "Ran out of memory"


def test_killed_by_signal(sandbox: Sandbox) -> None:
    result = sandbox.run_python("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert result.status is RunStatus.ERROR and result.exit_code == 139
    assert result.summary().startswith("Killed by SIGSEGV")


def test_bad_paths_and_closed_sandbox_raise(sandbox: Sandbox) -> None:
    for bad in ("../x", "/etc/passwd", "a/../../b", ""):
        with pytest.raises(ValueError):
            sandbox.run(["true"], files={bad: "x"})
        with pytest.raises(ValueError):
            sandbox.run(["true"], fetch=[bad])
    with pytest.raises(ValueError):
        sandbox.run([])
    with pytest.raises(ValueError):
        sandbox.run(["true"], limits=SandboxLimits(network=True))


def test_closed_sandbox_raises() -> None:
    from agentgym.sandboxes.fake import FakeSandbox

    box = FakeSandbox()
    box.close()
    with pytest.raises(SandboxClosed):
        box.run(["true"])


def test_async_twins_run_concurrently(sandbox: Sandbox) -> None:
    async def main() -> list[str]:
        runs = [sandbox.arun_python(f"print({i} * 2)") for i in range(3)]
        results = await asyncio.gather(*runs, sandbox.arun(["echo", "x"]))
        return [r.stdout for r in results]

    assert asyncio.run(main()) == ["0\n", "2\n", "4\n", "x\n"]
