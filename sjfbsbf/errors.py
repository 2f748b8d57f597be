"""Error types shared by the whole toolkit."""

from __future__ import annotations


class InstanceError(ValueError):
    """Invalid problem data: names where it came from (file, row or job, field).

    Parameters
    ----------
    message
        What is wrong.
    source
        File name (or ``None`` for data built in memory).
    row
        Job id or row number the error is about, if any.
    field
        Field name the error is about, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        row: int | str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.row = row
        self.field = field
        super().__init__(self.__str__())

    def with_source(self, source: str) -> InstanceError:
        """Return the same error, attributed to ``source``."""
        return InstanceError(self.message, source=source, row=self.row, field=self.field)

    def __str__(self) -> str:
        where = []
        if self.source is not None:
            where.append(str(self.source))
        if self.row is not None:
            where.append(f"job {self.row}" if isinstance(self.row, int) else str(self.row))
        if self.field is not None:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class FeasibilityError(RuntimeError):
    """A scheduling decision violates the cluster model (raised by the feasibility checker)."""


class SchedulingError(RuntimeError):
    """The run cannot go on: jobs wait on an idle cluster and the policy starts nothing, or the
    policy keeps deciding while no job progresses (the watchdog, docs/model.md §4)."""
