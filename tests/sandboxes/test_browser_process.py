"""Counting a launched browser's processes by type (what the leak tests and the soak sample)."""

from __future__ import annotations

import subprocess
import sys

import psutil

from agentgym.sandboxes.browser import MARKER, browser_processes


def test_only_the_marked_main_process_counts_as_a_browser() -> None:
    # a stand-in browser: a process carrying the marker switch with a typed child and an untyped
    # one (a helper, or what a zygote has forked before it has a command line)
    script = ("import subprocess, sys, time\n"
              "kids = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)',"
              " '--type=renderer']),"
              " subprocess.Popen(['sleep', '60'])]\n"
              "print('ready', flush=True)\n"
              "time.sleep(60)\n")
    main = subprocess.Popen([sys.executable, "-c", script, MARKER + "test"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert main.stdout is not None and main.stdout.readline().strip() == "ready"
        counts = browser_processes()
        assert counts == {"browser": 1, "renderer": 1, "other": 1}, counts
    finally:
        procs = [*psutil.Process(main.pid).children(recursive=True)]
        main.kill()
        main.wait()
        for proc in procs:
            proc.kill()
    assert browser_processes()["browser"] == 0
