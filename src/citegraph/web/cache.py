"""The web cache: search results and fetched pages on disk, one JSON file each, kept for an age limit,
so a repeated question sends no request and an offline run can answer from what was read before."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class WebCache:
    def __init__(self, directory: str | Path, max_age_s: float):
        self.dir = Path(directory).expanduser()
        self.max_age_s = max_age_s

    def _path(self, kind: str, key: str) -> Path:
        return self.dir / kind / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def get(self, kind: str, key: str, any_age: bool = False) -> Any | None:
        """What was stored under (kind, key), if younger than the age limit (any age when offline)."""
        path = self._path(kind, key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if record.get("key") != key:  # a hash collision, however unlikely, is a miss
            return None
        if not any_age and time.time() - float(record.get("stored", 0)) > self.max_age_s:
            return None
        return record.get("value")

    def put(self, kind: str, key: str, value: Any) -> None:
        """Store a value; a cache that cannot be written (a full disk, a read-only folder) only costs the
        next run its requests, so that is not an error."""
        path = self._path(kind, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A name of its own per write: sub-queries read the same page in parallel threads.
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, "stored": time.time(), "value": value}, fh)
            os.replace(tmp, path)  # a reader never sees half a file
        except OSError:
            log.warning("the web cache %s could not be written", self.dir, exc_info=True)
