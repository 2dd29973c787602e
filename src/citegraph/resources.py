"""The process-wide resources, kept in one place: the embedder (embed.py), the cross-encoders
(reader.py) and one retriever per corpus (retrievers/hybrid.py) are each loaded once and then shared
by every question the process answers. `clear()` lets them go (tests; a long-lived process that wants
the memory back); the next use loads them again.

The chat models are not here: langchain-openai's async client is bound to the event loop it first ran
on, so llm.py keeps one per loop, weakly, and a loop's go with it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_made: dict[tuple[str, Hashable], Any] = {}
# One lock per kind: a retriever being opened (which loads the embedder) does not hold up a reader.
_locks: dict[str, threading.RLock] = {}
_locks_lock = threading.Lock()


def _lock(kind: str) -> threading.RLock:
    with _locks_lock:
        return _locks.setdefault(kind, threading.RLock())


def shared(
    kind: str,
    key: Hashable,
    make: Callable[[], T],
    stale: Callable[[T], bool] | None = None,
    close: Callable[[T], None] | None = None,
) -> T:
    """The resource of this kind and key, made by `make()` on first use; made again when `stale(it)`
    says it no longer reflects what it was made from (`close(it)` first)."""
    with _lock(kind):
        it = _made.get((kind, key))
        if it is not None and stale is not None and stale(it):
            if close is not None:
                close(it)
            it = None
        if it is None:
            it = make()
            _made[(kind, key)] = it
        return it


def clear(kind: str | None = None) -> None:
    """Forget the resources of one kind, or all of them (closing those with a `close` method)."""
    for k in [k for k in _made if kind is None or k[0] == kind]:
        with _lock(k[0]):
            it = _made.pop(k, None)
        if it is not None and callable(getattr(it, "close", None)):
            it.close()
