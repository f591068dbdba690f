"""Files fetched over HTTP(S) at a recorded digest: a release file, a download of the authors'."""

from __future__ import annotations

import hashlib
import logging
import urllib.request
from pathlib import Path

from noveval.core.files import write_bytes

log = logging.getLogger(__name__)


def fetch(
    what: str, url: str, target: str | Path, sha256: str | None = None, timeout_s: float = 300
) -> None:
    """Download ``url`` to ``target`` (written atomically), checking its SHA-256 where one is
    recorded and logging it either way; ``what`` names the file in the error of a wrong digest."""
    target = Path(target)
    log.info("downloading %s to %s", url, target)
    with urllib.request.urlopen(url, timeout=timeout_s) as answer:
        data = answer.read()
    digest = hashlib.sha256(data).hexdigest()
    if sha256 and digest != sha256:
        raise ValueError(f"{what}: {url} has SHA-256 {digest}, the config expects {sha256}")
    write_bytes(data, target)
    log.info("%s: %d bytes, SHA-256 %s", target, target.stat().st_size, digest)
