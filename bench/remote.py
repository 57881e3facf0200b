"""Generate and validate into an S3 bucket (a local moto server, from the test extras) against the
same run on local disk, two workers each.

    python bench/remote.py [--games N]

The server runs on this machine and shares its two cores, so the figure bounds the cost of the
object-store path (one put a file, spawned workers) rather than measuring a real S3.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile

from measure import print_table, timed, war


def main() -> None:
    from moto.server import ThreadedMotoServer
    from pyarrow import fs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    games = parser.parse_args().games
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",  # for the war processes
                      AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
    fs.S3FileSystem(endpoint_override=f"http://{host}:{port}", allow_bucket_creation=True).create_dir("bench")
    uri = f"s3://bench/war?endpoint_override=http://{host}:{port}"
    common = ["--games", str(games), "--seed", "1", "--workers", "2", "-q"]
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, where in (("local disk", os.path.join(tmp, "war")), ("S3 (moto)", uri)):
                gen, _ = timed(war("generate", *common, "--out", where))
                val, _ = timed(war("validate", where, "--workers", "2", "-q"))
                rows.append((name, f"{games / gen:,.0f} games/s", f"{games / val:,.0f} games/s"))
    finally:
        server.stop()
    print(f"{games:,} games:")
    print_table(["where", "generate, 2 workers", "validate, 2 workers"], rows)


if __name__ == "__main__":
    main()
