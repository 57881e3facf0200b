"""Where a dataset lives: a local path, or a URI of any file system pyarrow knows (s3://, gs://,
abfs://, hdfs://...).

A remote location is a `StorePath`, a small pathlib-like handle over a pyarrow file system, so
the code that writes and reads datasets is one piece for both kinds. What differs between them
is kept in two places: how a file is put whole (`StorePath.put`), and how the writer's lock is
taken (pipeline.journal).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from urllib.parse import unquote

import pyarrow as pa
from pyarrow import fs

from .processes import process_alive

from ..errors import DatasetError

URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+)://(.*)$")
OBJECT_STORES = {"s3", "gcs", "abfs"}  # a put appears whole or not at all; no folders, no rename


class StoreError(DatasetError, OSError):
    """A remote file system refused an operation (no such bucket, no permission, network). Also an
    OSError, so code that tolerates a missing or unreadable file treats both kinds alike."""


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


@functools.lru_cache(maxsize=32)
def _filesystem(uri: str):
    try:
        return _fs().FileSystem.from_uri(uri)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, ValueError) as err:
        raise DatasetError(f"{uri!r} is not a location pyarrow can open: {_first_line(err)}") from None


GCS_RETRY_SECONDS = 30


def _with_defaults(uri: str) -> str:
    """Google Cloud Storage retries a failing request for 15 minutes by default, which looks like
    a hang when the network is down; war gives up after 30 seconds unless the URI says otherwise."""
    scheme = uri.partition("://")[0].lower()
    if scheme in ("gs", "gcs") and "retry_limit_seconds=" not in uri:
        return uri + ("&" if "?" in uri else "?") + f"retry_limit_seconds={GCS_RETRY_SECONDS}"
    return uri


def _fs():
    """pyarrow.fs, imported when a remote location is first used, so that importing this module
    (every command does, through pipeline.dataset) stays light."""
    return fs


def location(where: "str | Path | StorePath") -> "Path | StorePath":
    """A dataset location: a Path for a plain path or a `file://` URI, else a StorePath."""
    if isinstance(where, (Path, StorePath)):
        return where
    if isinstance(where, os.PathLike):
        where = os.fspath(where)
    if not isinstance(where, str):  # a caller of the library's, not a command line
        raise DatasetError(f"a dataset is a path (a str or a Path, or a URI), not {type(where).__name__} {where!r}")
    m = URI.match(where)
    if m is None:
        return Path(where)
    scheme, rest = m.group(1).lower(), m.group(2)
    if scheme == "file":
        host, _, path = rest.partition("/")
        if host not in ("", "localhost"):
            raise DatasetError(f"{where!r}: a file:// URI must name a local path (file:///data/war)")
        return Path(unquote("/" + path.partition("?")[0]))
    return StorePath.from_uri(where)


def real_path(path, param: str | None = None) -> Path:
    """Where the local `path` leads, every symbolic link followed; the parts not there yet are
    kept as they are (a new file, a new folder). The one way war resolves a path it writes to,
    so that what it refuses is said alike everywhere, on one line naming `path` (a DatasetError
    about the argument `param`, exit 2): a loop of symbolic links, a symbolic link to nothing,
    and a path the system will not follow (a file in place of a folder, no permission)."""
    named = f"`{param}` {str(path)!r}" if param else repr(str(path))
    full = Path(path).expanduser()
    full = full if full.is_absolute() else Path.cwd() / full
    head, new = full, []
    while not os.path.lexists(head) and head.parent != head:  # a link, even one to nothing, is there
        new.append(head.name)
        head = head.parent
    try:
        real = Path(os.path.realpath(head, strict=True))
    except RuntimeError:  # a loop, in Pythons that say it so
        raise DatasetError(f"{named} leads into a loop of symbolic links", params=(param,) if param else ()) from None
    except OSError as err:
        import errno

        if err.errno == errno.ELOOP:
            raise DatasetError(f"{named} leads into a loop of symbolic links",
                               params=(param,) if param else ()) from None
        if err.errno == errno.ENOENT and os.path.islink(head):
            link = "is a symbolic link" if head == full else f"leads through the symbolic link {str(head)!r}"
            raise DatasetError(f"{named} {link} to {os.readlink(head)!r}, which does not exist; "
                               f"give a path that does, or remove the link", params=(param,) if param else ()) from None
        raise DatasetError(f"cannot reach {named}: {err.strerror or type(err).__name__}",
                           params=(param,) if param else ()) from None
    return real.joinpath(*reversed(new))


def temporary_name(path):
    """The hidden name a file is written under before it is moved to `path` (readers skip names
    that start with `.`; the pid lets a resumed run sweep those of writers that are gone)."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def sweep_temporaries(paths) -> None:
    """Remove those of `paths` that are temporary_name's of a writer that no longer runs (killed
    mid-write: kill -9 or SIGTERM cannot clean up after themselves); a running writer's, and any
    other name, are left. A file gone meanwhile is no error."""
    for path in paths:
        pid = path.name.rsplit(".", 2)[-2] if path.name.startswith(".") and path.name.endswith(".tmp") else ""
        if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass


def glob_literal(text: str) -> str:
    """`text` as a glob pattern that matches only itself (`*`, `?` and `[` each in a class of
    its own): for readers that take every path as a pattern, as DuckDB's read_parquet does, so
    that a folder named `**` or `star*x` is read as the folder it is, not as a pattern."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def is_remote(where) -> bool:
    return isinstance(where, StorePath)


class StorePath:
    """A file or folder on a pyarrow file system, with the part of pathlib's API that datasets
    use. `str()` gives back a URI that `location()` opens again, so a location crosses process
    and machine boundaries (Dask workers) as a string."""

    __slots__ = ("fs", "path", "_head", "_query", "_type")

    def __init__(self, fs, path: str, head: str, query: str, type_=None) -> None:
        self.fs = fs
        self.path = path
        self._head = head
        self._query = query
        self._type = type_

    @classmethod
    def from_uri(cls, uri: str) -> "StorePath":
        head, _, query = uri.partition("?")
        fs, path = _filesystem(_with_defaults(uri))
        return cls(fs, path.rstrip("/"), head.rstrip("/"), query)

    @property
    def object_store(self) -> bool:
        return self.fs.type_name in OBJECT_STORES

    def __truediv__(self, rel) -> "StorePath":
        rel = str(rel).strip("/")
        return StorePath(self.fs, f"{self.path}/{rel}", f"{self._head}/{rel}", self._query)

    def __str__(self) -> str:
        return self._head + ("?" + self._query if self._query else "")

    def __repr__(self) -> str:
        return f"StorePath({str(self)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, StorePath) and (self._head, self._query) == (other._head, other._query)

    def __lt__(self, other: "StorePath") -> bool:
        return self.path < other.path

    def __hash__(self) -> int:
        return hash((self._head, self._query))

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> "StorePath":
        return StorePath(self.fs, self.path.rsplit("/", 1)[0], self._head.rsplit("/", 1)[0], self._query)

    def with_name(self, name: str) -> "StorePath":
        return self.parent / name

    def relative_to(self, other: "StorePath") -> PurePosixPath:
        if not self.path.startswith(other.path + "/"):
            raise ValueError(f"{self} is not under {other}")
        return PurePosixPath(self.path[len(other.path) + 1:])

    def resolve(self) -> "StorePath":
        return self

    def _call(self, what: str, fn, *args):
        try:
            return fn(*args)
        except FileNotFoundError:
            raise
        except OSError as err:
            raise StoreError(f"cannot {what} {str(self)!r}: {_first_line(err)}") from None

    def info(self):
        return self._call("look at", self.fs.get_file_info, self.path)

    def _type_now(self):
        return self._type if self._type is not None else self.info().type

    def exists(self) -> bool:
        return self._type_now() != _fs().FileType.NotFound

    def is_dir(self) -> bool:
        return self._type_now() == _fs().FileType.Directory

    def is_file(self) -> bool:
        return self._type_now() == _fs().FileType.File

    def mtime(self):
        return self.info().mtime

    def stat(self) -> SimpleNamespace:
        info = self.info()
        if info.type == _fs().FileType.NotFound:
            raise FileNotFoundError(str(self))
        return SimpleNamespace(st_size=info.size, st_mtime=info.mtime_ns / 1e9 if info.mtime_ns else None)

    def _listing(self, recursive: bool):
        selector = _fs().FileSelector(self.path, allow_not_found=True, recursive=recursive)
        for info in self._call("list", self.fs.get_file_info, selector):
            rel = info.path[len(self.path) + 1:]
            child = self / rel
            child._type = info.type
            yield child

    def iterdir(self):
        return self._listing(recursive=False)

    def rglob(self, pattern: str):
        return (p for p in self._listing(recursive=True) if fnmatch.fnmatchcase(p.name, pattern))

    def read_bytes(self) -> bytes:
        def read():
            with self.fs.open_input_stream(self.path) as f:
                return f.read()

        return self._call("read", read)

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.read_bytes().decode(encoding)

    def open_input(self):
        """A seekable file, for Parquet readers."""
        return self._call("open", self.fs.open_input_file, self.path)

    def open_stream(self):
        return self._call("open", self.fs.open_input_stream, self.path)

    def put(self, data: bytes) -> None:
        """Write the whole file so that no reader sees a part of it: on an object store one put
        (an object appears only once its upload completes, and a killed upload leaves nothing);
        elsewhere a hidden temporary name, then a move."""
        def write(target: str) -> None:
            with self.fs.open_output_stream(target) as f:
                f.write(data)

        if self.object_store:
            self._call("write", write, self.path)
            return
        self.parent.mkdir(parents=True, exist_ok=True)
        tmp = temporary_name(self)
        try:
            self._call("write", write, tmp.path)
            self._call("write", self.fs.move, tmp.path, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self._call("remove", self.fs.delete_file, self.path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        """Object stores have no folders: nothing to make (a marker object would only show up
        as litter in listings)."""
        if not self.object_store:
            self._call("make", lambda: self.fs.create_dir(self.path, recursive=parents))

    def remove_tree(self) -> None:
        try:
            self._call("remove", self.fs.delete_dir, self.path)
        except FileNotFoundError:
            pass
