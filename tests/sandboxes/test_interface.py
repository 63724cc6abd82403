"""Unit tests of the sandbox interface, the fake, selection, registration and the helpers."""

from __future__ import annotations

import asyncio
import io
import json
import tarfile

import pytest

import agentgym.sandboxes as sandboxes
from agentgym.errors import AgentGymError, NameNotFound
from agentgym.sandbox import (
    RunResult,
    RunStatus,
    Sandbox,
    SandboxClosed,
    SandboxError,
    SandboxLimits,
    SandboxRunError,
    SandboxTimeout,
    SandboxUnavailable,
    check_relative,
    normalize_files,
)
from agentgym.sandboxes import FakeSandbox, open_sandbox
from agentgym.sandboxes._files import pack_files, unpack_files
from agentgym.sandboxes._pump import CappedBuffer
from agentgym.sandboxes._script import SETUP_FAILED, classify
from agentgym.sandboxes._seccomp import compile_filter
from agentgym.sandboxes.plugin import register_builtin_sandboxes


def test_errors_share_the_agentgym_root() -> None:
    for error in (SandboxUnavailable, SandboxClosed, SandboxRunError, SandboxTimeout):
        assert issubclass(error, SandboxError) and issubclass(error, AgentGymError)
    assert issubclass(SandboxTimeout, SandboxRunError)


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (RunResult(exit_code=0, duration_s=0.1234), "Exited with code 0 in 0.12 s"),
        (RunResult(exit_code=2, status=RunStatus.ERROR), "Exited with code 2 in 0.00 s"),
        (RunResult(timed_out=True, duration_s=5.04, status=RunStatus.TIMEOUT),
         "Timed out after 5.0 s"),
        (RunResult(status=RunStatus.MEMORY, memory_killed=True), "Ran out of memory"),
        (RunResult(exit_code=137, status=RunStatus.ERROR), "Killed by SIGKILL (exit code 137)"),
        (RunResult(status=RunStatus.SANDBOX_ERROR, error="engine gone"),
         "Sandbox error: engine gone"),
        (RunResult(exit_code=0, output_truncated=True), "Exited with code 0 in 0.00 s; "
         "output truncated"),
    ],
)  # fmt: skip
def test_summary(result: RunResult, text: str) -> None:
    assert result.summary() == text


def test_to_dict_is_json_ready() -> None:
    result = RunResult(stdout="hi", files={"a.bin": b"\x00\xff"}, status=RunStatus.ERROR)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["status"] == "error" and data["files"] == {"a.bin": "AP8="}
    assert data["stdout"] == "hi" and data["exit_code"] is None


def test_check_raises_by_status() -> None:
    ok = RunResult(exit_code=0)
    assert ok.check() is ok
    with pytest.raises(SandboxTimeout) as timeout:
        RunResult(status=RunStatus.TIMEOUT, timed_out=True, duration_s=1).check()
    assert timeout.value.result.timed_out
    with pytest.raises(SandboxRunError, match="Exited with code 1"):
        RunResult(exit_code=1, status=RunStatus.ERROR).check()


@pytest.mark.parametrize("path", ["a.py", "d/e/f.txt", "./x", "a/./b"])
def test_relative_paths_are_accepted(path: str) -> None:
    assert not check_relative(path).startswith(("/", "./"))


@pytest.mark.parametrize("path", ["", "/abs", "..", "../x", "a/../../x", ".", "a\0b"])
def test_escaping_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError):
        check_relative(path)


def test_normalize_files_encodes_text() -> None:
    assert normalize_files({"a": "é", "./b": b"\x00"}) == {"a": "é".encode(), "b": b"\x00"}
    with pytest.raises(ValueError):
        normalize_files({"a": 3})  # type: ignore[dict-item]


def test_fake_sandbox_scripted_results_and_calls() -> None:
    box = FakeSandbox([RunResult(stdout="first"), RunResult(stdout="second")])
    assert box.run_python("print(1)", stdin="in").stdout == "first"
    assert box.run(["ls"]).stdout == "second"
    assert box.run(["ls"]).stdout == ""  # the default once the script is used up
    first = box.calls[0]
    assert first.command == ["python3", "main.py"] and first.code == "print(1)"
    assert first.stdin == b"in" and first.limits == SandboxLimits()


def test_fake_sandbox_handler_and_fetch() -> None:
    def handler(call):  # type: ignore[no-untyped-def]
        return RunResult(stdout="4\n") if "2+2" in call.code else None

    box = FakeSandbox(handler, default=RunResult(exit_code=9, status=RunStatus.ERROR))
    assert box.run_python("print(2+2)").stdout == "4\n"
    assert box.run_python("print(3)").exit_code == 9
    fetched = box.run(["true"], files={"a.txt": "A"}, fetch=["a.txt", "b.txt"])
    assert fetched.files == {"a.txt": b"A"}


def test_session_files_and_close() -> None:
    box = FakeSandbox()
    box.put_files({"lib/x.py": "X = 1"})
    box.run(["true"], files={"y": "2"})
    assert box.calls[0].files == {"lib/x.py": b"X = 1", "y": b"2"}
    assert box.get_file("lib/x.py") == b"X = 1"
    box.clear_files()
    with pytest.raises(FileNotFoundError):
        box.get_file("lib/x.py")
    with box:
        pass
    assert box.closed
    with pytest.raises(SandboxClosed):
        box.run(["true"])
    with pytest.raises(SandboxClosed):
        box.put_files({"a": "b"})


def test_async_twins_and_async_context() -> None:
    async def main() -> tuple[str, bool]:
        async with FakeSandbox(lambda call: RunResult(stdout=call.command[0])) as box:
            a, b = await asyncio.gather(box.arun(["echo"]), box.arun_python("x"))
        return a.stdout + b.stdout, box.closed

    assert asyncio.run(main()) == ("echopython3", True)


class _Broken(Sandbox):
    name = "broken"

    def _run(self, command, stdin, files, fetch, limits):  # type: ignore[no-untyped-def]
        raise RuntimeError("engine vanished")


def test_backend_failure_becomes_a_sandbox_error_result() -> None:
    result = _Broken().run(["true"])
    assert result.status is RunStatus.SANDBOX_ERROR
    assert result.error == "RuntimeError: engine vanished"


def test_classify() -> None:
    limits = SandboxLimits(timeout_s=2.0)
    base = {"limits": limits, "stdout": "", "output_truncated": False, "files": {}}

    def status(**kw):  # type: ignore[no-untyped-def]
        return classify(**{"duration_s": 0.1, "stderr": "", **base, **kw}).status.value

    assert status(exit_code=0) == "ok"
    assert status(exit_code=1) == "error"
    assert status(exit_code=137, duration_s=2.05) == "timeout"
    assert status(exit_code=152) == "timeout"  # SIGXCPU: the CPU-time limit
    assert status(exit_code=137) == "memory"  # SIGKILL before the limit, no OOM counter
    assert status(exit_code=137, oom_killed=False) == "error"
    assert status(exit_code=0, oom_killed=True, duration_s=2.1) == "memory"
    assert status(exit_code=1, stderr="Traceback...\nMemoryError\n") == "memory"
    assert status(exit_code=0, stderr="MemoryError\n") == "ok"
    assert status(exit_code=None, host_killed=True, duration_s=5.0) == "timeout"
    assert status(exit_code=125, stderr=SETUP_FAILED) == "sandbox_error"
    assert status(exit_code=125) == "error"


def test_capped_buffer() -> None:
    buf = CappedBuffer(cap=5)
    for chunk in (b"abc", b"def", b"ghi"):
        buf.feed(chunk)
    assert bytes(buf.data) == b"abcde" and buf.dropped == 4 and buf.truncated


def test_tar_round_trip_and_caps() -> None:
    files = {"a.py": b"print(1)", "d/run.sh": b"#!/bin/sh\n", "big": b"x" * 100}
    data = pack_files(files)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        modes = {m.name: m.mode for m in tar}
    assert modes == {"a.py": 0o644, "big": 0o644, "d/run.sh": 0o755}
    assert unpack_files(data, max_file_bytes=1000, max_total_bytes=10**6) == files
    capped = unpack_files(data, max_file_bytes=50, max_total_bytes=10**6)
    assert set(capped) == {"a.py", "d/run.sh"}
    assert unpack_files(data[:700], max_file_bytes=1000, max_total_bytes=10**6) == {
        "a.py": b"print(1)"
    }
    assert pack_files({}) == b"" and unpack_files(b"", max_file_bytes=1, max_total_bytes=1) == {}


def test_unpack_keeps_only_regular_files() -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        link = tarfile.TarInfo("./link")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
        tar.addfile(link)
        dev = tarfile.TarInfo("./dev")
        dev.type = tarfile.CHRTYPE
        tar.addfile(dev)
        real = tarfile.TarInfo("./real")
        real.size = 1
        tar.addfile(real, io.BytesIO(b"r"))
    assert unpack_files(buf.getvalue(), max_file_bytes=10, max_total_bytes=10) == {"real": b"r"}


def test_seccomp_filter_shape() -> None:
    program = compile_filter("x86_64")
    assert program is not None and len(program) % 8 == 0
    assert program[-8:-6] == b"\x06\x00" and program[-4:] == (0x00050001).to_bytes(4, "little")
    assert compile_filter("sparc") is None


def test_builtin_registration() -> None:
    seen: dict[str, tuple[str, bool]] = {}

    def register(name, entry_point, *, available, **extra):  # type: ignore[no-untyped-def]
        seen[name] = (entry_point, callable(available))

    register_builtin_sandboxes(register)
    assert seen == {
        "docker": ("agentgym.sandboxes.docker:DockerSandbox", True),
        "bubblewrap": ("agentgym.sandboxes.bubblewrap:BubblewrapSandbox", True),
        "fake": ("agentgym.sandboxes.fake:FakeSandbox", True),
        "desktop": ("agentgym.sandboxes.desktop:DesktopSandbox", True),
        "browser": ("agentgym.sandboxes.browser:BrowserPool", True),
    }


def test_open_sandbox_by_name_and_unknown() -> None:
    assert isinstance(open_sandbox("fake"), FakeSandbox)
    with pytest.raises(NameNotFound):
        open_sandbox("no-such-backend")


def test_open_sandbox_auto_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    class Registry:
        def __contains__(self, name: object) -> bool:
            return True

        def load(self, name: str):  # type: ignore[no-untyped-def]
            def opener(**kwargs):  # type: ignore[no-untyped-def]
                raise SandboxUnavailable(f"{name} is missing here")

            return opener

    monkeypatch.setattr(sandboxes, "_registry", lambda: Registry())
    with pytest.raises(SandboxUnavailable, match="docker is missing.*bubblewrap is missing"):
        open_sandbox()


def test_public_api_is_sorted_and_documented() -> None:
    assert sandboxes.__all__ == sorted(sandboxes.__all__)
    for name in sandboxes.__all__:
        obj = getattr(sandboxes, name)
        if callable(obj):
            assert obj.__doc__ and obj.__doc__.strip(), name
