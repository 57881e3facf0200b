"""The report's charts drawn on two processes at once.

vl-convert holds the interpreter while it draws (a thread beside it gains nothing), and drawing
is the report's last step, on one core while the other is idle: a third of the report's time on
two cores. `war report` starts one helper process when it begins, forked before DuckDB or any thread of
war's starts (a fork is then safe). It loads and warms vl-convert while the queries run; when the
charts are drawn, the helper takes every other figure and this process the rest. A figure's SVG
is the same bytes whichever process draws it (render_svg numbers its ids per figure)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from .figure import Figure
from .render import render_svg


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the report's process stops the helper


def _warm() -> None:
    import vl_convert as vlc  # the Vega runtime starts on its first chart

    vlc.vegalite_to_svg({"mark": "point", "data": {"values": [{"x": 0}]}}, allowed_base_urls=[])


def _draw(fig: Figure, links: bool) -> str:
    return render_svg(fig, links=links)


HELPER_WAIT = 120  # seconds a chart may take on the helper before it is drawn here instead


class Painter:
    """Draws figures to SVG, on a forked helper beside this process with `helper` (Linux, two
    cores or more), else here, one after another. `war report` asks for the helper at its start.
    No helper once vl-convert is loaded in this process: its runtime's threads do not survive a
    fork, and a forked helper waits in it for ever (a test runner or a notebook that drew a
    chart before)."""

    def __init__(self, helper: bool = False) -> None:
        self.pool: ProcessPoolExecutor | None = None
        if helper and sys.platform == "linux" and (os.cpu_count() or 1) > 1 and "vl_convert" not in sys.modules:
            self.pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"), initializer=_ignore_interrupts)
            self.pool.submit(_warm)  # starts the helper now, to warm while the queries run

    def svgs(self, figures: list[Figure], links: bool = False,
             drawn: Callable[[], None] | None = None) -> list[str]:
        """The SVG of each figure, in their order; `drawn()` after each one. The helper draws
        every other one; what it fails to draw (it died, or took HELPER_WAIT) is drawn here."""
        drawn = drawn or (lambda: None)
        far = {} if self.pool is None else \
            {i: self.pool.submit(_draw, f, links) for i, f in enumerate(figures) if i % 2}
        out: list[str | None] = [None] * len(figures)
        for i, f in enumerate(figures):
            if i not in far:
                out[i] = render_svg(f, links=links)
                drawn()
        for i, future in far.items():
            try:
                out[i] = future.result(timeout=HELPER_WAIT) if self.pool is not None else None
            except (BrokenProcessPool, TimeoutError):
                self.close()
            if out[i] is None:
                out[i] = render_svg(figures[i], links=links)
            drawn()
        return out

    def close(self) -> None:
        """Stop the helper (at once when the report failed or was interrupted)."""
        if self.pool is not None:
            for proc in list((getattr(self.pool, "_processes", None) or {}).values()):
                proc.terminate()
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def __enter__(self) -> Painter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
