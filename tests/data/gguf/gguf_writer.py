"""A GGUF writer from the format's published description (ggml's docs/gguf.md), for the test
fixtures of tests/core/gguf. Every number little-endian:

    "GGUF", version (uint32), tensor count (uint64), metadata count (uint64),
    metadata: key (string), value type (uint32), value,
    tensor infos: name (string), n_dims (uint32), dims (uint64 each, ne[0] first: a row's values),
                  type (uint32, ggml's numbering), offset (uint64, from the data section's start),
    padding to the alignment, then the data (each tensor at a multiple of the alignment).

A string is a uint64 byte count and the UTF-8 bytes; an array is an element type (uint32), a
count (uint64) and the elements.
"""
import struct

UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
_SCALAR = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i",
           FLOAT32: "<f", BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}

# ggml's tensor type numbers
TYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q5_0": 6, "Q5_1": 7, "Q8_0": 8, "Q2_K": 10,
         "Q3_K": 11, "Q4_K": 12, "Q5_K": 13, "Q6_K": 14, "BF16": 30}


def string(text):
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def value(kind, v):
    if kind == STRING:
        return string(v)
    if kind == ARRAY:
        element, items = v
        out = struct.pack("<IQ", element, len(items))
        for item in items:
            out += value(element, item)
        return out
    return struct.pack(_SCALAR[kind], v)


def gguf_bytes(metadata, tensors, alignment=32, version=3):
    """metadata: [(key, kind, value)]; tensors: [(name, dims (ne[0] first), type name, raw bytes)]."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    for key, kind, v in metadata:
        out += string(key) + struct.pack("<I", kind) + value(kind, v)
    offset = 0
    placed = []
    for name, dims, type_name, raw in tensors:
        out += string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", TYPES[type_name], offset)
        placed.append((offset, raw))
        offset += len(raw)
        offset += (-offset) % alignment
    out += b"\0" * ((-len(out)) % alignment)
    data = bytearray()
    for start, raw in placed:
        data += b"\0" * (start - len(data))
        data += raw
    return out + bytes(data)


def write_gguf(path, metadata, tensors, alignment=32, version=3):
    with open(path, "wb") as f:
        f.write(gguf_bytes(metadata, tensors, alignment, version))
