"""A small seccomp denylist for the bubblewrap backend, compiled to classic BPF in Python.

Namespaces already confine a program; this filter removes kernel interfaces a code-exercise
program never needs and that widen the attack surface: ptrace and cross-process memory access,
mount and namespace syscalls, keyrings, BPF, perf, userfaultfd, module and kexec loading. Denied
calls fail with ``EPERM``. Syscalls of a foreign ABI (32-bit or x32 on x86-64) are denied
wholesale, so the table cannot be bypassed through another calling convention. Docker applies
its own default profile instead.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

_LD_ABS_W = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_X32_BIT = 0x40000000

# (audit arch, syscall numbers) per machine.
_DENIED = {
    "x86_64": (0xC000003E, {
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "mount": 165,
        "umount2": 166, "pivot_root": 155, "unshare": 272, "setns": 308, "keyctl": 250,
        "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
        "finit_module": 313, "delete_module": 176, "swapon": 167, "swapoff": 168,
        "reboot": 169, "acct": 163, "open_by_handle_at": 304, "name_to_handle_at": 303,
        "iopl": 172, "ioperm": 173, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    }),
    "aarch64": (0xC00000B7, {
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "mount": 40,
        "umount2": 39, "pivot_root": 41, "unshare": 97, "setns": 268, "keyctl": 219,
        "add_key": 217, "request_key": 218, "bpf": 280, "perf_event_open": 241,
        "userfaultfd": 282, "kexec_load": 104, "kexec_file_load": 294, "init_module": 105,
        "finit_module": 273, "delete_module": 106, "swapon": 224, "swapoff": 225,
        "reboot": 142, "acct": 89, "open_by_handle_at": 265, "name_to_handle_at": 264,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442,
    }),
}  # fmt: skip


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def compile_filter(machine: str | None = None) -> bytes | None:
    """The denylist as a cBPF program for ``machine`` (default: this one), or ``None``."""
    machine = machine or platform.machine()
    table = _DENIED.get(machine)
    if table is None:
        return None
    arch, numbers = table
    checks = [(_JGE_K, _X32_BIT)] if machine == "x86_64" else []
    checks += [(_JEQ_K, number) for number in sorted(set(numbers.values()))]
    deny_at = 3 + len(checks) + 1  # ld arch, jeq arch, ld nr, checks..., ret allow, ret deny
    prog = [
        _insn(_LD_ABS_W, 0, 0, 4),  # A = seccomp_data.arch
        _insn(_JEQ_K, 0, deny_at - 2, arch),  # a foreign ABI: deny
        _insn(_LD_ABS_W, 0, 0, 0),  # A = seccomp_data.nr
    ]
    for code, k in checks:
        prog.append(_insn(code, deny_at - len(prog) - 1, 0, k))  # match: jump to deny
    prog.append(_insn(_RET_K, 0, 0, _RET_ALLOW))
    prog.append(_insn(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM))
    return b"".join(prog)


def filter_fd() -> int | None:
    """A fresh memfd holding the compiled filter (bwrap reads it to the end), or ``None``."""
    program = compile_filter()
    if program is None:
        return None
    fd = os.memfd_create("agentgym-seccomp")
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
