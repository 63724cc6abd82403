"""Moving files in and out of a sandbox as tar streams.

Files go in as one uncompressed tar, unpacked by the in-sandbox wrapper as the sandbox user, and
come back as a tar written by ``tar -c`` inside the sandbox. The host only ever *parses* the
returned stream (never extracts it to disk), keeps regular files, and caps sizes, so a hostile
run cannot plant symlinks, devices or huge archives on the host.
"""

from __future__ import annotations

import io
import logging
import tarfile

logger = logging.getLogger(__name__)

FILE_MODE = 0o644
EXEC_MODE = 0o755


def pack_files(files: dict[str, bytes]) -> bytes:
    """Return an uncompressed tar of ``files`` (paths already checked); ``b""`` for none.

    Files that start with ``#!`` are made executable so ``./script.sh`` works.
    """
    if not files:
        return b""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for path, content in sorted(files.items()):
            info = tarfile.TarInfo(path)
            info.size = len(content)
            info.mode = EXEC_MODE if content.startswith(b"#!") else FILE_MODE
            tar.addfile(info, io.BytesIO(content))
    return buf.getvalue()


def unpack_files(data: bytes, *, max_file_bytes: int, max_total_bytes: int) -> dict[str, bytes]:
    """Parse a tar stream into ``{path: content}``, keeping regular files within the caps.

    Paths lose a leading ``./``. Oversized files and files past the total cap are left out (and
    logged); a corrupt or truncated stream yields the files read before the damage.
    """
    out: dict[str, bytes] = {}
    if not data:
        return out
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for member in tar:
                if not member.isreg():
                    continue
                name = member.name[2:] if member.name.startswith("./") else member.name
                if member.size > max_file_bytes or total + member.size > max_total_bytes:
                    logger.warning("fetched file %r (%d bytes) is over the cap", name, member.size)
                    continue
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                out[name] = handle.read()
                total += member.size
    except (tarfile.TarError, EOFError, OSError) as e:
        logger.warning("fetched archive is damaged (%s); returning %d file(s)", e, len(out))
    return out
