#!/usr/bin/env python3
"""Repairs the table export that wasm-opt <= 108 writes wrong.

Binaryen before version 110 writes every table export with index 0
(WebAssembly/binaryen#4711, fixed by #4736). wasm-bindgen exports its
externref table as `__wbindgen_externrefs`, so after Debian's wasm-opt 108
that export names the funcref table and the page dies at start-up with
"WebAssembly.Table.set(): Argument 1 is invalid for table".

Trunk runs this as a post_build hook on every .wasm in its staging directory.
It only rewrites an export that names a table of the wrong type while exactly
one externref table exists, so with a fixed wasm-opt (or a debug build, which
skips wasm-opt) it changes nothing. Standard library only.
"""

import os
import sys
from pathlib import Path

EXPORT = b"__wbindgen_externrefs"
EXTERNREF = 0x6F
KIND_TABLE = 0x01


def leb(data, pos):
    """Reads an unsigned LEB128 number; returns (value, next position)."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def encode_leb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def skip_limits(data, pos):
    flags = data[pos]
    _, pos = leb(data, pos + 1)
    if flags & 1:
        _, pos = leb(data, pos)
    return pos


def sections(data):
    """Yields (id, start of section, start of payload, end) for each section."""
    pos = 8
    while pos < len(data):
        start = pos
        section_id = data[pos]
        size, payload = leb(data, pos + 1)
        yield section_id, start, payload, payload + size
        pos = payload + size


def table_types(data):
    """The element type of every table, imported ones first (index order)."""
    types = []
    for section_id, _, payload, _ in sections(data):
        if section_id == 2:  # imports
            count, pos = leb(data, payload)
            for _ in range(count):
                for _ in range(2):  # module and field names
                    length, pos = leb(data, pos)
                    pos += length
                kind = data[pos]
                pos += 1
                if kind == 0x00:  # function
                    _, pos = leb(data, pos)
                elif kind == 0x01:  # table
                    types.append(data[pos])
                    pos = skip_limits(data, pos + 1)
                elif kind == 0x02:  # memory
                    pos = skip_limits(data, pos)
                elif kind == 0x03:  # global
                    pos += 2
                else:  # tags and future kinds: stop guessing
                    return None
        elif section_id == 4:  # tables
            count, pos = leb(data, payload)
            for _ in range(count):
                types.append(data[pos])
                pos = skip_limits(data, pos + 1)
    return types


def repair(data):
    """Returns the repaired module, or None when nothing needs to change."""
    types = table_types(data)
    if not types:
        return None
    externref_tables = [i for i, t in enumerate(types) if t == EXTERNREF]
    if len(externref_tables) != 1:
        return None
    for section_id, start, payload, end in sections(data):
        if section_id != 7:  # exports
            continue
        count, pos = leb(data, payload)
        entries = []
        changed = False
        for _ in range(count):
            length, name_at = leb(data, pos)
            name = data[name_at : name_at + length]
            kind = data[name_at + length]
            index, pos = leb(data, name_at + length + 1)
            if kind == KIND_TABLE and name == EXPORT and types[index] != EXTERNREF:
                index = externref_tables[0]
                changed = True
            entries.append(encode_leb(length) + name + bytes([kind]) + encode_leb(index))
        if not changed:
            return None
        body = encode_leb(count) + b"".join(entries)
        section = bytes([7]) + encode_leb(len(body)) + body
        return data[:start] + section + data[end:]
    return None


def main():
    staging = Path(os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist"))
    for path in sorted(staging.glob("*.wasm")):
        data = path.read_bytes()
        if data[:4] != b"\0asm":
            continue
        fixed = repair(data)
        if fixed is not None:
            path.write_bytes(fixed)
            print(f"fix_table_export: pointed {EXPORT.decode()} back at the externref table in {path.name}")


if __name__ == "__main__":
    main()
