"""A desktop's private accessibility (AT-SPI) bus, for the widget trees of GTK apps.

GTK apps publish their widgets over AT-SPI when they find an accessibility bus. Each desktop
gets its own: a ``dbus-daemon`` with at-spi2's ``accessibility.conf`` listening on a socket file
in the desktop's folder (bubblewrapped apps see that folder; an abstract socket would be hidden
by their network namespace) and ``at-spi2-registryd`` on it. Apps find the bus through
``AT_SPI_BUS_ADDRESS``, so no session bus or ``at-spi-bus-launcher`` is needed.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

CONFIGS = (Path("/usr/share/defaults/at-spi2/accessibility.conf"),
           Path("/usr/share/at-spi2/accessibility.conf"))
REGISTRYDS = (Path("/usr/libexec/at-spi2-registryd"),
              Path("/usr/lib/at-spi2-core/at-spi2-registryd"))
REGISTRY_NAME = "org.a11y.atspi.Registry"


def a11y_parts() -> tuple[Path, Path] | None:
    """``(bus config, registry daemon)`` when dbus-daemon and at-spi2-core are installed."""
    config = next((c for c in CONFIGS if c.is_file()), None)
    registryd = next((r for r in REGISTRYDS if r.is_file()), None)
    if config is None or registryd is None or shutil.which("dbus-daemon") is None:
        return None
    if shutil.which("dbus-send") is None:
        return None
    return config, registryd


def start_a11y_bus(
    spawn: Callable[[Sequence[str]], subprocess.Popen[bytes]],
    set_address: Callable[[str], None], folder: Path, timeout_s: float,
) -> list[subprocess.Popen[bytes]]:
    """Start the bus and its registry with ``spawn``; return their processes.

    ``set_address`` is called with the bus address once the socket exists, before the registry
    starts (the registry and every app inherit it). Raises ``TimeoutError`` when either part does
    not come up within ``timeout_s``.
    """
    parts = a11y_parts()
    if parts is None:
        raise FileNotFoundError("dbus-daemon or at-spi2-core is not installed")
    config, registryd = parts
    socket = folder / "a11y-bus"
    address = f"unix:path={socket}"
    procs = [spawn(["dbus-daemon", f"--config-file={config}", f"--address={address}",
                    "--nofork"])]
    deadline = time.monotonic() + timeout_s
    while not socket.exists():
        if time.monotonic() > deadline or procs[0].poll() is not None:
            raise TimeoutError("the accessibility bus did not start")
        time.sleep(0.02)
    set_address(address)
    procs.append(spawn([str(registryd), "--use-gnome-session=false"]))
    ask = ["dbus-send", f"--bus={address}", "--print-reply", "--dest=org.freedesktop.DBus",
           "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
           f"string:{REGISTRY_NAME}"]
    while True:
        done = subprocess.run(ask, capture_output=True, text=True, timeout=timeout_s)
        if "boolean true" in done.stdout:
            return procs
        if time.monotonic() > deadline or procs[1].poll() is not None:
            raise TimeoutError("the accessibility registry did not start")
        time.sleep(0.05)


__all__ = ["a11y_parts", "start_a11y_bus"]
