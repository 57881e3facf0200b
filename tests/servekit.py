"""Helpers of the `war serve` tests: a `war serve` process started as a user starts it (on a free
port, stopped by its pid), raw HTTP that sends a path exactly as given, and the resident memory
of a process."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import psutil


@contextmanager
def war_serve(root: Path, *args: str, timeout: float = 300, report: bool = True):
    """A `war serve ROOT --port 0 ARGS` process; yields (base URL, process). The URL is known
    once the server says it listens, at once; with `report`, it is yielded once the home page
    is the report (built meanwhile: until then the page says how far it is)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "serve", str(root), "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = None
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            m = re.search(r"at (http://\S+/) ", line)
            if m:
                url = m.group(1)
                break
        assert url, f"war serve did not start: {proc.stderr.read() if proc.poll() is not None else ''}"
        if report:
            wait_for_report(url, deadline - time.time())
        yield url, proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_for_report(url: str, timeout: float = 300) -> tuple[int, bytes]:
    """The home page once it is the report (the server builds it in the background: at its
    start, and again after the dataset's manifest changes), or the page there is at `timeout`."""
    deadline = time.time() + timeout
    while True:
        status, body = raw_get(url, "/")
        if b'id="building"' not in body or time.time() >= deadline:
            return status, body
        time.sleep(0.2)


def get(url: str) -> tuple[int, bytes]:
    """A page's status and body through urllib (an error status too, with its body)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def raw_get(url: str, path: str, host: str | None = None, method: str = "GET") -> tuple[int, bytes]:
    """A request with the path sent exactly as given (no client normalizes the `..`)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=120) as s:
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: {host or parts.netloc}\r\nConnection: close\r\n\r\n"
                  .encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head.lower():
        body = dechunk(body)
    return int(head.split()[1]), body


def dechunk(body: bytes) -> bytes:
    out, i = [], 0
    while True:
        end = body.index(b"\r\n", i)
        size = int(body[i:end].split(b";")[0], 16)
        if size == 0:
            return b"".join(out)
        out.append(body[end + 2:end + 2 + size])
        i = end + 2 + size + 2


def rss(pid: int) -> int:
    """The resident memory of a process and its children, in bytes."""
    proc = psutil.Process(pid)
    total = proc.memory_info().rss
    for child in proc.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total
