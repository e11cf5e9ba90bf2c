"""Progress on stderr for the long calls, opt-in: ``with af.progress(): ...``.

Off unless asked. Inside ``with af.progress():`` every long call (``evaluate``,
``compare``, ``to_cells``, ``write_cells``, ``from_cells`` stores read and rolled up,
``Cells.read`` and ``sum`` of cells, ``html_report``) says on stderr what it is doing
and how long it took:

- on a terminal, one line redrawn by a background thread while Polars runs (which
  releases the GIL): a spinner, the call, the stage (``scanning 'x.parquet'``,
  ``evaluating`` ...) and the time so far; cleared when the call ends;
- elsewhere (a notebook, a pipe, a log file) one line when a stage starts;

and, either way, one line when the call ends (``aggframe: evaluate: done in 4.2s``,
or ``failed after`` when it raised: the exception itself propagates unchanged). A call
with ``lazy=True`` runs nothing, so it shows nothing. Nothing is ever written to stdout.

The mechanism is two hooks the library places on its own code, both free when no
display is active: :func:`tracked` (a decorator naming a call) and :func:`stage` (a
context manager naming what a call is doing, around a collect that reads the data).
:class:`Spinner` is the live line itself, shared with the command line.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

if TYPE_CHECKING:
    import polars as pl

__all__ = ["Progress", "Spinner", "evaluating", "is_terminal", "progress", "run_stage", "stage", "tracked"]

P = ParamSpec("P")
R = TypeVar("R")

_ACTIVE: ContextVar[Progress | None] = ContextVar("aggframe_progress", default=None)


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (a live line can be redrawn on it)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Spinner:
    """One live line on a terminal: ``⠋ aggframe: <text>... 1.2s``, redrawn by a background thread.

    The time counts from ``started`` (``time.perf_counter()``; default: now). :meth:`stop`
    ends the thread and clears the line; it may be called more than once.
    """

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    ASCII = "|/-\\"

    def __init__(
        self, stream: Any, text: str, *, started: float | None = None, interval: float = 0.1
    ) -> None:
        self.stream = stream
        self.text = text
        self.started = time.perf_counter() if started is None else started
        encoding = (getattr(stream, "encoding", None) or "ascii").lower()
        self.frames = self.FRAMES if encoding.replace("-", "") in ("utf8", "utf16") else self.ASCII
        self.ticks = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._draw()
        self._thread: threading.Thread | None = threading.Thread(
            target=self._spin, args=(interval,), daemon=True
        )
        self._thread.start()

    def set(self, text: str) -> None:
        """Show ``text`` now."""
        with self._lock:
            self.text = text
        self._draw()

    def _draw(self) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            frame = self.frames[self.ticks % len(self.frames)]
            self.ticks += 1
            took = time.perf_counter() - self.started
            self.stream.write(f"\r\x1b[K{frame} aggframe: {self.text}... {took:.1f}s")
            self.stream.flush()

    def _spin(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self._draw()

    def stop(self) -> None:
        """End the thread and clear the line."""
        with self._lock:
            if self._stop.is_set():
                return
            self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.stream.write("\r\x1b[K")
        self.stream.flush()


class Progress:
    """The progress display of the calls made inside ``with``: see :func:`progress`."""

    def __init__(
        self, *, enabled: bool = True, stream: Any = None, live: bool | None = None, interval: float = 0.1
    ) -> None:
        self.enabled = enabled
        self._stream = stream
        self._live = live
        self.interval = interval
        self._tokens: list[Token[Progress | None]] = []
        self._calls: list[str] = []  # the tracked calls running, outermost first
        self._stages: list[str] = []  # the stages running, outermost first
        self._started = 0.0
        self._spinner: Spinner | None = None

    @property
    def stream(self) -> Any:
        """Where the display goes: the stream given, else ``sys.stderr`` as it is now."""
        return sys.stderr if self._stream is None else self._stream

    def __enter__(self) -> Progress:
        self._tokens.append(_ACTIVE.set(self if self.enabled else None))
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _ACTIVE.reset(self._tokens.pop())
        self._end()

    # -- what runs ----------------------------------------------------------------------------
    @contextmanager
    def _entered(self, stack: list[str], name: str) -> Iterator[None]:
        first = not self._calls and not self._stages
        if first:
            self._started = time.perf_counter()
        stack.append(name)
        self._show(starting=stack is self._stages)
        failed = True
        try:
            yield
            failed = False
        finally:
            stack.pop()
            if not self._calls and not self._stages:
                self._finish(name, failed=failed)
            else:
                self._show(starting=False)

    def _label(self) -> str:
        parts = [*self._calls[:1], *self._stages[-1:]]
        return ": ".join(parts)

    def _show(self, *, starting: bool) -> None:
        live = is_terminal(self.stream) if self._live is None else self._live
        label = self._label()
        if live:
            if self._spinner is None:
                self._spinner = Spinner(self.stream, label, started=self._started, interval=self.interval)
            else:
                self._spinner.set(label)
        elif starting:
            self.stream.write(f"aggframe: {label}...\n")
            self.stream.flush()

    def _finish(self, name: str, *, failed: bool) -> None:
        self._end()
        took = time.perf_counter() - self._started
        end = f"failed after {took:.1f}s" if failed else f"done in {took:.1f}s"
        self.stream.write(f"aggframe: {name}: {end}\n")
        self.stream.flush()

    def _end(self) -> None:
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None


def progress(
    *, enabled: bool = True, stream: Any = None, live: bool | None = None, interval: float = 0.1
) -> Progress:
    """Show the progress of aggframe's long calls on stderr, inside a ``with`` block.

    Off unless asked: only calls made inside ``with af.progress():`` (in the same thread)
    show anything. On a terminal a spinner names the call, the stage it is in (``scanning
    'x.parquet'``, ``scanning ... for 200 bootstrap replicates``, ``reading and rolling up
    cell stores ...``, ``evaluating`` ...) and the time so far, and is cleared when the call
    ends; elsewhere (a notebook, a log) each stage is one line when it starts. Either way
    one line when a call ends: ``aggframe: evaluate: done in 4.2s`` (``failed after`` if it
    raised; the error propagates unchanged). ``lazy=True`` runs nothing and shows nothing.
    The results are the same with and without it.

    Parameters
    ----------
    enabled
        ``False`` turns the display off inside the block (e.g. ``af.progress(enabled=verbose)``).
    stream
        Where to write (default: ``sys.stderr``).
    live
        Redraw one line (``True``) or write one line per stage (``False``). Default: live
        when the stream is a terminal.
    interval
        Seconds between redraws of the live line.

    Returns
    -------
    Progress
        A context manager.

    Raises
    ------
    None
        It raises nothing of its own; an error inside the block propagates unchanged
        (after a ``failed after`` line).

    Examples
    --------
    >>> import io
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> log = io.StringIO()
    >>> with af.progress(stream=log):
    ...     report = pr.evaluate("f1", "macro")
    >>> for line in log.getvalue().splitlines():  # the times cut off
    ...     print(line.split(" in ")[0])
    aggframe: evaluate: scanning the frame...
    aggframe: evaluate: evaluating...
    aggframe: evaluate: done
    """
    return Progress(enabled=enabled, stream=stream, live=live, interval=interval)


def tracked(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Name a long call for the progress display (the call runs as is when none is active).

    A call with ``lazy=True`` is not shown (it runs nothing); the stages under it still are.
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            display = _ACTIVE.get()
            if display is None or kwargs.get("lazy") is True:
                return fn(*args, **kwargs)
            with display._entered(display._calls, name):
                return fn(*args, **kwargs)

        return call

    return decorate


@contextmanager
def stage(text: str) -> Iterator[None]:
    """Name what the running call is doing (free when no display is active)."""
    display = _ACTIVE.get()
    if display is None:
        yield
        return
    with display._entered(display._stages, text):
        yield


def evaluating(frame: pl.LazyFrame, *, engine: Any = "auto") -> pl.DataFrame:
    """Collect a report (small tables, but over every bootstrap replicate) as the stage ``evaluating``."""
    with stage("evaluating"):
        return frame.collect(engine=engine)


def run_stage(text: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` as the stage ``text``: ``run_stage("evaluating", lf.collect)``."""
    with stage(text):
        return fn(*args, **kwargs)
