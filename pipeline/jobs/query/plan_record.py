"""How `connect`'s set-up is recorded into a session's plan (plan.py reads, keeps and runs
plans): a module of its own, so that the set-up (session_setup) and the plans' reader do not
import each other."""

from __future__ import annotations

import base64
import os

import pyarrow as pa

from .session import Session

# The Python functions of the views a plan can make again from the dataset (session_setup.view_functions).
REMADE = frozenset({"war_deal_piles", "war_swapped_deal", "war_first_of_class", "war_source_game", "war_source_deal",
                    "war_enumerated_piles"})


class Recorder:
    """The connection `connect` sets the views up through when a plan is to be kept: each step
    goes to DuckDB and is noted. A step a plan cannot hold (a query whose answer the set-up
    reads, a Python function it cannot make again, a table not in memory) makes it no plan."""

    def __init__(self, con):
        self.con, self.steps, self.plannable = con, [], True

    def execute(self, sql, parameters=None):
        if parameters is not None or not sql.lstrip().upper().startswith("CREATE"):
            self.plannable = False
        else:
            self.steps.append(["sql", sql])
        return self.con.execute(sql) if parameters is None else self.con.execute(sql, parameters)

    def register(self, name, table):
        if isinstance(table, pa.Table):
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            self.steps.append(["table", name, base64.b64encode(sink.getvalue().to_pybytes()).decode()])
        else:
            self.plannable = False
        return self.con.register(name, table)

    def unregister(self, name):
        self.steps.append(["drop", name])
        return self.con.unregister(name)

    def create_function(self, name, function, parameters=None, return_type=None, **options):
        if name in REMADE and isinstance(return_type, str) and parameters and len(parameters) <= 2 and \
                all(isinstance(p, str) for p in parameters):
            self.steps.append(["function", name, list(parameters), return_type, options])
        else:
            self.plannable = False
        return self.con.create_function(name, function, parameters, return_type, **options)

    def __getattr__(self, name):  # anything else (con.sql, ...): run, and no plan
        self.plannable = False
        return getattr(self.con, name)

    def noted(self, session: Session, folders: list[str], copies: list[str], ds) -> dict:
        """The plan of the set-up just done: its steps, the session's fields, the dataset's
        folders and the copies' files it was locked to, and the stat of each copy and of each
        data file of the manifest (`ds`, a local dataset's): a file changed since, which the set-up
        would have hashed, sets the session up again."""
        from ...model.families import registry

        stats = []
        try:
            for path in copies:
                st = os.stat(path)
                stats.append([path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino])
            where = os.path.realpath(ds.root) if ds is not None else ""
            for f in (ds.manifest.files if ds is not None else ()):
                st = os.stat(os.path.join(where, f.path))
                stats.append([os.path.join(where, f.path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, None])
        except OSError:
            return {"plannable": False}
        return {"plannable": self.plannable and not registry().left_out,  # its warning is said each time
                "steps": self.steps, "folders": folders, "files": list(copies), "stats": stats,
                "session": {"no_events": session.no_events, "events": session.events,
                            "partial_log": session.partial_log, "counted": session.counted,
                            "copies": list(session.copies)}}
