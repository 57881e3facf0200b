"""What the tests of a solution folder share: small rule sets, and a copy of a solution with one
value changed (a tamper, by default signed again so that it hides from the checksums)."""

from __future__ import annotations

import hashlib
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

import pipeline as war


def rules(ranks, suits, **options):
    return war.build_rules("classic", {"ranks": ranks, "suits": suits, "war_down": 0, **options})


def changed_copy(src, dst, file, column, row, change, resign=True):
    """A copy of the solution `src` at `dst` with `file`'s `column` at `row` replaced by
    change(value), and with `resign` its checksum in solution.json written again."""
    shutil.copytree(src, dst)
    table = pq.read_table(dst / file)
    values = table.column(column).to_pylist()
    values[row] = change(values[row])
    table = table.set_column(table.column_names.index(column), column, pa.array(values, table.schema.field(column).type))
    pq.write_table(table, dst / file)
    if resign:
        body = json.loads((dst / "solution.json").read_text())
        for f in body["files"]:
            if f["path"] == file:
                f["sha256"] = hashlib.sha256((dst / file).read_bytes()).hexdigest()
        (dst / "solution.json").write_text(json.dumps(body))
    return dst
