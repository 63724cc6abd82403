"""PID 1 of a live bubblewrap shell (:mod:`.bubblewrap_live`); runs *inside* the sandbox.

Started by ``bwrap --as-pid-1`` with ``python3 -c <this file's text>``, it imports only the
standard library (agentgym's folders are masked in the sandbox). It makes itself non-dumpable
(so the agent's processes, same uid, cannot open its ``/proc/1/fd`` pipes) and, as the PID
namespace's init, cannot be signalled by them either (``kill -9 -1`` and ``kill -9 1`` skip
it). It then serves requests from the host on stdin, one at a time, each a JSON header line,
optionally followed by ``n`` payload bytes; each answer is a JSON line, optionally followed by
payload bytes:

- ``{"op": "load", "n": N}`` + a tar: unpacked over ``/``; answers ``{"ok": true}``;
- ``{"op": "run", "argv": [...], "timeout": T, "cap": C}``: ``argv`` runs in a new session with
  no stdin; its stdout and stderr are read (the first ``C`` bytes of each kept, the rest read
  and dropped) until it exits or ``T`` seconds pass; then every other process is killed
  (``kill -9 -1`` until none is left) and reaped. Answers ``{"rc", "timed_out", "out", "err",
  "trunc"}`` with ``out + err`` bytes after it;
- ``{"op": "snap", "argv": [...], "max": M}``: ``argv``'s stdout (a tar of the roots), answered
  ``{"stream": true}``, then frames (4-byte length + bytes, an empty one last), then
  ``{"over": bool}`` (true: it passed ``M`` bytes and was cut off).

Neither a state loaded nor a snapshot is ever held whole here: both can be as large as the
tmpfs mounts, which count in the same memory cgroup.
"""

import ctypes
import json
import os
import selectors
import signal
import subprocess
import sys
import time

CHUNK = 1 << 20

def _sweep():
    for _ in range(2000):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            break
        except OSError:
            break
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.001)


def _load(src, n):
    """Unpack the ``n``-byte tar that follows on ``src`` over ``/``, streamed (never held
    whole: it may be as large as the tmpfs mounts it fills, all in one memory cgroup)."""
    tar = subprocess.Popen(["tar", "-x", "-p", "-f", "-", "-C", "/"], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    left, broken = n, False
    while left:
        chunk = src.read(min(left, CHUNK))
        if not chunk:
            raise EOFError
        left -= len(chunk)
        if not broken:
            try:
                tar.stdin.write(chunk)
            except BrokenPipeError:
                broken = True
    try:
        tar.stdin.close()
    except BrokenPipeError:
        pass
    err = tar.stderr.read()
    tar.stderr.close()
    return {"ok": tar.wait() == 0 and not broken, "error": err[-300:].decode(errors="replace")}


def _snap(dst, argv, most):
    """Stream ``argv``'s stdout (a tar) to ``dst`` as frames: a 4-byte length and the bytes,
    ended by an empty frame and a JSON line saying whether it passed ``most`` bytes (then it
    was cut off: the host drops it)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    total, over = 0, False
    while True:
        chunk = proc.stdout.read1(CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if total > most:
            over = True
            proc.kill()
            break
        dst.write(len(chunk).to_bytes(4, "big") + chunk)
    proc.stdout.close()
    proc.wait()
    dst.write(b"\0\0\0\0" + json.dumps({"over": over}).encode() + b"\n")


def _collect(proc, timeout, cap):
    """(rc, timed_out, out, err, trunc): read ``proc``'s pipes until it exits or the deadline."""
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    bufs = {out_fd: bytearray(), err_fd: bytearray()}
    trunc = False
    deadline = time.monotonic() + timeout
    timed_out = False
    rc = None
    with selectors.DefaultSelector() as sel:
        for fd in bufs:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            if rc is None:
                rc = proc.poll()
                if rc is not None:
                    _sweep()  # what it left holds the pipes open: gone now
            left = deadline - time.monotonic()
            if rc is None and left <= 0:
                timed_out = True
                _sweep()
                rc = proc.poll() if proc.poll() is not None else -9
                continue
            for key, _ in sel.select(timeout=min(0.05, max(left, 0.001))):
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                buf = bufs[key.fd]
                room = cap - len(buf)
                if len(chunk) > room:
                    trunc = True
                buf += chunk[:max(room, 0)]
    if rc is None:
        try:
            rc = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = -9
    _sweep()
    proc.stdout.close()
    proc.stderr.close()
    return rc, timed_out, bytes(bufs[out_fd]), bytes(bufs[err_fd]), trunc


def main():
    """Serve the host's requests until its end of stdin closes."""
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    src, dst = sys.stdin.buffer, sys.stdout.buffer
    dst.write(b'{"ready": true}\n')
    dst.flush()
    while True:
        line = src.readline()
        if not line:
            return
        req = json.loads(line)
        payload = b""
        if req["op"] == "load":
            head = _load(src, req["n"])
        elif req["op"] == "run":
            proc = subprocess.Popen(req["argv"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
            rc, timed_out, out, err, trunc = _collect(proc, req["timeout"], req["cap"])
            head = {"rc": rc, "timed_out": timed_out, "out": len(out), "err": len(err),
                    "trunc": trunc}
            payload = out + err
        else:  # snap
            dst.write(b'{"stream": true}\n')
            _snap(dst, req["argv"], req["max"])
            dst.flush()
            continue
        dst.write(json.dumps(head).encode() + b"\n" + payload)
        dst.flush()


if __name__ == "__main__":
    main()
