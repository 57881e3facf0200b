"""What `war serve` serves of one dataset, kept in step with its manifest.

A `Snapshot` is the dataset as one manifest describes it: its rule sets, the DuckDB sessions its
queries run in, its report and the game pages built last. A session is opened once and every
request runs in a cursor of it, so the views' set-up is paid once (the event views, a pass over
every battle's shape, on the first query that reads them); a dataset on remote storage, whose
views are connection-local, gets a session per query instead.

A snapshot's report is kept in war's own cache, per user, for exactly these data and this war
(report_cache), so a second start on the same data reads it instead of building it again;
nothing is written into the dataset.

`Site.now()` is the current snapshot: at most once a second it reads manifest.json, and when its
SHA-256 differs (`war generate --append` wrote a new one), or a data file it lists is not the file
it was (a `cp` over one: files_identity), it makes a new snapshot, whose report is built in the
background and whose sessions check the files again. So the variants, rule sets and report a
request sees are those of the manifest on disk, and a snapshot's answers never mix two manifests
nor answer from a file that is not the manifest's.

A Ctrl-C while a report is built in the background is not the report's error but the server's
end: DuckDB ends the report's query with its own error (the process's stop interrupts every
query: jobs.query.guard), which `interrupted` knows, and the site's `interrupted` hook is told
(war serve stops at once, exit 130). A snapshot closed while its report is built stops it at its
next step.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import pyarrow as pa

from ..errors import Interrupted, WarError, interrupted
from ..jobs.query import Result, Session, connect, open_prepared, prepare
from ..storage.dataset import MANIFEST, Dataset
from ..storage.layout import files_identity
from ..storage.location import is_remote, location
from .bounds import TIME_LIMIT, Slots
from .report import Steps, build_report_data, rule_sets
from .report_cache import keep_report, kept_report, report_key

CHECK_SECONDS = 1.0    # how often the manifest is read again, at most
PAGE_CACHE = 8         # game pages kept
Progress = Callable[[int, int], None]  # progress(advance, total), as report.Steps reports
SLOTS = Slots()        # the server's queries at once, whatever snapshot they read


def manifest_digest(root) -> str:
    """The SHA-256 of the dataset's manifest.json as it is now; without one, what every command
    says of the folder (no dataset, one being written, an unfinished one: Dataset.open)."""
    try:
        return hashlib.sha256((location(root) / MANIFEST).read_bytes()).hexdigest()
    except FileNotFoundError:
        Dataset.open(root)
        raise


def _identity(root, paths) -> tuple:
    """The dataset's data files `paths` by stat (files_identity), () where one cannot be stat'ed (a
    writer replacing them; a file gone is then said by the snapshot's own readers)."""
    try:
        return files_identity(root, paths)
    except OSError:
        return ()


class Snapshot:
    """The dataset as one manifest describes it (see the module's docstring)."""

    def __init__(self, root, name: str, digest: str, links, interrupted: Callable[[], None] | None = None):
        self.root = root
        self.name = name
        self.digest = digest
        self.links = links
        ds = Dataset.open(root)
        self.paths = [f.path for f in ds.manifest.files]
        self.identity = _identity(root, self.paths)  # its data files by stat: one replaced is another snapshot
        self.infos = rule_sets(ds)
        self.logs = frozenset(e.log for e in ds.manifest.rule_sets)  # what its rule sets store: events, games, counts
        self.every_deal = any(r.all_deals or r.counted for r in self.infos)  # a row of the `counts` view
        self.players = max((r.rules.get("players", 2) for r in self.infos), default=2)
        self.games = sum(r.games for r in self.infos)
        self.remote = is_remote(ds.root)
        self._sessions: dict[bool, Session] = {}
        self._session_locks = {False: threading.Lock(), True: threading.Lock()}
        self._report: str | None = None
        self._report_error: Exception | None = None
        self._report_done = threading.Event()
        self._report_lock = threading.Lock()
        self.steps = (0, 0)  # the report's steps done and in all while it is built (report.Steps)
        self._later = False  # its report is being built in a thread of its own (build_report_later)
        self._builder: threading.Thread | None = None
        self._closed = False
        self._interrupted = interrupted  # told of a Ctrl-C that ended a report built in the background
        self._pages: OrderedDict[object, str] = OrderedDict()
        self._pages_lock = threading.Lock()

    @property
    def variants(self) -> list[str]:
        return list(dict.fromkeys(r.variant for r in self.infos))

    # ------------------------------------------------------------------ queries

    def session(self, events: bool) -> Session | None:
        """The snapshot's session (with the event views when `events`), opened on first need;
        None for remote storage."""
        if self.remote:
            return None
        with self._session_locks[events]:
            if events not in self._sessions:
                self._sessions[events] = connect(self.root, events=events)
            return self._sessions[events]

    def open(self, sql: str | None = None, name: str | None = None, params: dict | None = None) -> Result:
        """A query (ad-hoc SQL or a named query) ready to run in this snapshot's session, within
        the server's bounds (bounds.py): TIME_LIMIT seconds of DuckDB's work a step, and one of
        the server's query slots, held until the result is closed (503 when none frees up)."""
        query = prepare(sql, name, params)  # parsed once: which session it takes, then what runs
        SLOTS.take()
        try:
            result = open_prepared(self.root, query, session=self.session(query.events), step_limit=TIME_LIMIT)
        except BaseException:
            SLOTS.give_back()
            raise
        return SLOTS.held_by(result)

    def run(self, sql: str, params: dict | None = None) -> list[dict]:
        """The rows of the server's own SQL (fixed text, bound parameters)."""
        with self.open(sql=sql, params=params) as result:
            reader = result.batches()
            return pa.Table.from_batches(list(reader), schema=reader.schema).to_pylist()

    # ------------------------------------------------------------------ the report

    def build_report(self, progress: Progress | None = None) -> None:
        """Build the report now (the server's first page), or read the one kept in the user's
        cache for these data (report_cache); an error is kept and shown there."""
        with self._report_lock:
            if self._report_done.is_set():
                return
            try:
                key = report_key(self.root, self.digest, self.name)
                self._report = kept_report(key)
                if self._report is None:
                    self._report = self._render_report(progress)
                    if manifest_digest(self.root) == self.digest:  # not a manifest written meanwhile
                        keep_report(key, self._report)
            except Exception as err:  # shown on the report's page; the server stays up
                if interrupted(err) and threading.current_thread() is threading.main_thread():
                    raise  # Ctrl-C during the start-up, which DuckDB turns into its own error
                self._report_error = err
                if interrupted(err) and not self._closed and self._interrupted is not None:
                    self._interrupted()  # a Ctrl-C while it was built in the background: the server stops
            finally:
                self._report_done.set()

    def _render_report(self, progress: Progress | None) -> str:
        from .report_page import render_report  # lazy: Altair and vl-convert

        def counted(advance: int, total: int) -> None:  # kept for the page shown meanwhile
            if self._closed:
                raise Interrupted("interrupted")  # the server stopped: the report is not wanted
            self.steps = (self.steps[0] + advance, total)
            if progress is not None:
                progress(advance, total)

        steps = Steps(counted)
        data = build_report_data(self.root, steps=steps)
        return render_report(data, self.name, lambda gid: f"/games/{gid}", links=self.links, steps=steps, drill=True)

    def build_report_later(self, progress: Progress | None = None, built: Callable[[], None] | None = None) -> None:
        """Build the report in a thread of its own (the server answers meanwhile: `building`),
        telling `progress` as it goes and calling `built()` when it is done or failed."""
        def build() -> None:
            try:
                self.build_report(progress)
            finally:
                if built is not None:
                    built()

        self._later = True
        self._builder = threading.Thread(target=build, name="war-report", daemon=True)
        self._builder.start()

    @property
    def building(self) -> bool:
        """Whether its report is being built in the background and is not ready yet."""
        return self._later and not self._report_done.is_set()

    def report(self) -> str:
        """The report page, waiting for it while it is built."""
        if not self._report_done.is_set():
            self.build_report()
        self._report_done.wait()
        if self._report_error is not None:
            err = self._report_error
            raise WarError(f"the report could not be built: {str(err).splitlines()[0] if str(err) else type(err).__name__}")
        return self._report

    # ------------------------------------------------------------------ game pages

    def page(self, key, build: Callable[[], str]) -> str:
        """The game page kept under `key`, `build()` on first asking; the last few are kept."""
        with self._pages_lock:
            if key in self._pages:
                self._pages.move_to_end(key)
                return self._pages[key]
        page = build()
        with self._pages_lock:
            self._pages[key] = page
            while len(self._pages) > PAGE_CACHE:
                self._pages.popitem(last=False)
        return page

    def close(self, wait: float = 2.0) -> None:
        """Close its sessions; a report being built stops at its next step (waited for up to
        `wait` seconds)."""
        self._closed = True
        builder = self._builder
        if builder is not None and builder is not threading.current_thread():
            builder.join(wait)
        for session in self._sessions.values():
            session.close()
        self._sessions.clear()


class Site:
    """The dataset at `root` as the server shows it: `now()`, the snapshot of its current
    manifest. `links` are the (href, label) pairs of the report's bar of links; `interrupted()`
    is called when a Ctrl-C ends a report built in the background (the module's docstring)."""

    def __init__(self, root, name: str | None = None, links=(), interrupted: Callable[[], None] | None = None):
        self.root = root
        self.name = name or str(root)
        self.links = list(links)
        self.interrupted = interrupted
        self._lock = threading.Lock()
        self._checked = time.monotonic()
        self._current = Snapshot(root, self.name, manifest_digest(root), self.links, interrupted)
        self._retired: list[Snapshot] = []

    def now(self) -> Snapshot:
        """The snapshot of the manifest on disk (read again at most every CHECK_SECONDS). A
        manifest that cannot be read (a writer replacing it) keeps the snapshot there is."""
        with self._lock:
            if time.monotonic() - self._checked < CHECK_SECONDS:
                return self._current
            self._checked = time.monotonic()
            try:
                digest = manifest_digest(self.root)
                if digest != self._current.digest or \
                        _identity(self.root, self._current.paths) != self._current.identity:
                    fresh = Snapshot(self.root, self.name, digest, self.links, self.interrupted)
                    self._retired.append(self._current)  # requests under way may still use it
                    self._current = fresh
                    fresh.build_report_later()
            except (OSError, WarError):
                pass
            return self._current

    def close(self) -> None:
        for snapshot in (*self._retired, self._current):
            snapshot.close()
