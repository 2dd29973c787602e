"""The process-wide resources: made once and shared, made again when stale, let go by clear()."""

from citegraph import resources


class Thing:
    def __init__(self, version: int) -> None:
        self.version, self.closed = version, False

    def close(self) -> None:
        self.closed = True


def test_a_resource_is_made_once_remade_when_stale_and_closed_when_cleared():
    made: list[Thing] = []
    current = {"version": 1}

    def make() -> Thing:
        made.append(Thing(current["version"]))
        return made[-1]

    def get() -> Thing:
        return resources.shared(
            "test-thing", "k", make, stale=lambda t: t.version != current["version"], close=Thing.close
        )

    first = get()
    assert get() is first and len(made) == 1  # shared, not made again
    assert resources.shared("test-thing", "other key", make) is not first  # one per key
    current["version"] = 2  # what it was made from changed (a corpus re-ingested)
    second = get()
    assert second is not first and first.closed and second.version == 2
    resources.clear("test-thing")
    assert second.closed and get() is not second  # let go, then made again on the next use
    resources.clear("test-thing")
