"""Resident memory of `war generate` with a huge --games: it must stay flat, not grow with the
count (shards are made as workers take them). Runs `war generate --games N` for S seconds,
prints the RSS every 2 s, then stops it with Ctrl-C (SIGINT) and removes its output.

    python bench/memory.py [GAMES] [SECONDS] [WORKERS]     # defaults 1000000000 20 1
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import time


def rss_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(f.read().split("VmRSS:")[1].split()[0]) // 1024


def main() -> None:
    games = sys.argv[1] if len(sys.argv) > 1 else "1000000000"
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    workers = sys.argv[3] if len(sys.argv) > 3 else "1"
    out = tempfile.mkdtemp()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "generate", "--games", games, "-q",
                             "--workers", workers, "--out", f"{out}/big"],
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    try:
        for t in range(2, seconds + 1, 2):
            time.sleep(2)
            seen.append(rss_mb(proc.pid))
            print(f"{t:4d} s  {seen[-1]:6d} MB", flush=True)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait()
        shutil.rmtree(out, ignore_errors=True)
    print(f"--games {games}: RSS {min(seen)} .. {max(seen)} MB over {seconds} s")


if __name__ == "__main__":
    main()
