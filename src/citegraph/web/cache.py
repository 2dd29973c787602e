"""The web cache: search results and fetched pages on disk, one JSON file each, kept for an age limit,
so a repeated question sends no request and an offline run can answer from what was read before."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any


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
        path = self._path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "stored": time.time(), "value": value}), encoding="utf-8")
        os.replace(tmp, path)  # a reader never sees half a file
