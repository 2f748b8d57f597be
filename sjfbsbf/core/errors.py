"""Error types shared by the whole toolkit, and the escaping of text echoed in their messages."""

from __future__ import annotations


def escape(text: str) -> str:
    """``text`` with every non-printable character written as a Python escape.

    Newlines, terminal control sequences, lone surrogates and other non-printable characters
    become ``\\n``, ``\\x1b``, ``\\ud800``...; printable text (accents included) is kept. An error
    message built from file content thus stays on one line and cannot drive a terminal.

    Examples
    --------
    >>> escape("a\\nb\\x1b[31m")
    'a\\\\nb\\\\x1b[31m'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


#: Most characters an error echoes of a value (a field, a row) and of its whole message.
MAX_ECHO, MAX_MESSAGE = 80, 600


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` cut to ``limit`` characters, with the number of characters left out: an error
    never echoes an unbounded value (a 2 GB "header" once made an 84 MB message)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


class InstanceError(ValueError):
    """Invalid problem data: names where it came from (file, row or job, field).

    The message (``str(error)``) is one line: non-printable characters of every part are
    escaped (see :func:`escape`).

    Parameters
    ----------
    message
        What is wrong.
    source
        File name (or ``None`` for data built in memory).
    row
        Job id, or a text such as ``"line 12"`` or ``"cluster"``, the error is about, if any.
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
            where.append(f"job {self.row}" if isinstance(self.row, int) else clip(str(self.row)))
        if self.field is not None:
            where.append(f"field '{clip(str(self.field))}'")
        prefix = ", ".join(where)
        message = clip(self.message, MAX_MESSAGE)
        return escape(f"{prefix}: {message}" if prefix else message)


class SweepError(ValueError):
    """An invalid sweep definition: names the file and the key at fault.

    Parameters
    ----------
    message
        What is wrong.
    source
        The sweep file (or ``None`` for a definition built in memory).
    key
        Dotted path of the key at fault, e.g. ``"workloads[1].n_jobs"``, if any.
    """

    def __init__(self, message: str, *, source: str | None = None, key: str | None = None) -> None:
        self.message = message
        self.source = source
        self.key = key
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = [str(part) for part in (self.source,) if part is not None]
        if self.key is not None:
            where.append(f"key '{self.key}'")
        prefix = ", ".join(where)
        message = clip(self.message, MAX_MESSAGE)
        return escape(f"{prefix}: {message}" if prefix else message)


class SweepRunsFailed(RuntimeError):
    """Some runs of a sweep raised; the others finished and their results were kept.

    Parameters
    ----------
    failures
        One ``(run description, error text)`` per failed run.
    total
        Number of runs of the sweep.
    out_dir
        The sweep's output directory (the failure records are under ``runs/``).
    """

    def __init__(self, failures: list[tuple[str, str]], total: int, out_dir: str) -> None:
        self.failures = failures
        self.total = total
        self.out_dir = out_dir
        super().__init__(self.__str__())

    def __str__(self) -> str:
        shown = "; ".join(f"{what}: {error}" for what, error in self.failures[:3])
        more = len(self.failures) - 3
        tail = f"; and {more} more" if more > 0 else ""
        return escape(
            f"{len(self.failures)} of {self.total} runs failed: {shown}{tail} (failure records "
            f"in {self.out_dir}/runs/; a rerun retries them)"
        )


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived while a command ran (a BaseException, like KeyboardInterrupt).

    Parameters
    ----------
    signum
        The signal number.
    detail
        What was kept, e.g. ``"12 of 40 runs kept"`` (a sweep says it).
    """

    def __init__(self, signum: int, detail: str = "") -> None:
        self.signum = signum
        self.detail = detail
        super().__init__(f"interrupted by signal {signum}")


class BudgetSpent(RuntimeError):
    """A policy spent the wall-clock budget of its whole run (``exact-round``'s ``budget``): the
    run stops instead of going on for hours; the message says how far it got and how to raise it."""


class FeasibilityError(RuntimeError):
    """A scheduling decision violates the cluster model (raised by the feasibility checker)."""


class SchedulingError(RuntimeError):
    """The run cannot go on: jobs wait on an idle cluster and the policy starts nothing, or the
    policy keeps deciding while no job progresses (the watchdog, docs/model.md §4)."""
