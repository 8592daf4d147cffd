"""`Closing`: the one way a resource of ours becomes a context manager."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """Mixin for a resource with an idempotent `close()`: `with` closes it on exit, error or not.

    Every device, socket owner and journal is used this way (docs/architecture.md: every device
    is a context manager), so tests and the runtime release resources the same way everywhere.
    """

    def close(self) -> None:
        """Release the resource; calling it again does nothing. Subclasses implement it."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
