"""A hand decision's value (the depth of the war it is in, ruling 15) in the compiled engine's
events table.

The compiled engine's arrays give a decision's value column to its option count
(engines.compiled.layout), so the compiled encoder spells a hand decision without its `=depth`.
That depth is the value of the last `war` event before it in its row (a row is one battle), 0
when there is none: it is written into each distinct shape text, once per shape, not per row.
"""

from __future__ import annotations

from functools import lru_cache

import pyarrow as pa


@lru_cache(maxsize=1 << 16)  # many shapes recur from shard to shard
def with_depth(shape: str) -> str:
    """The shape with each hand decision's depth spelt: `decision:0#1{3}!hand` becomes
    `decision:0#1{3}=0!hand`, `=2` after a `war[0,1]=2` (a war's token ends with its value; a
    string scan, not log.codec.parse, which costs ten times as much on every new shape)."""
    if "!hand" not in shape:
        return shape
    tokens = shape.split(" ")
    depth = "0"
    for i, token in enumerate(tokens):
        if token.startswith(("war[", "war=")):
            depth = token[token.rindex("=") + 1:]
        elif token.startswith("decision") and token.endswith("!hand") and "=" not in token:
            tokens[i] = f"{token[:-len('!hand')]}={depth}!hand"
    return " ".join(tokens)


def with_hand_depths(events: pa.Table) -> pa.Table:
    """The events table with every hand decision's depth in its shape (see the module)."""
    index = events.schema.get_field_index("shape")
    chunks = []
    for chunk in events.column(index).chunks:
        texts = [with_depth(s) for s in chunk.dictionary.to_pylist()]
        chunks.append(pa.DictionaryArray.from_arrays(chunk.indices, pa.array(texts, pa.string())))
    column = pa.chunked_array(chunks, type=events.schema.field(index).type)
    return events.set_column(index, events.schema.field(index), column)
