#!/usr/bin/python3
"""Structural dump of ONNX models, written from the `onnx` Python package's messages alone.

The C++ importer test (native-tests/onnx/onnx_dump_test.cc) writes the same text from the imported IR; the two must
agree line for line. Only `onnx.load` and message fields are used here, so the rules of onnx-import.md (value order,
types from declarations then value_info, typed tensor fields converted to the raw layout, opsets per domain) are
re-implemented independently below. Floats are printed as bit patterns.

Usage: onnx_dump.py MODEL.onnx...   (one "== <path>" header per model)
"""
import hashlib
import struct
import sys

import numpy as np
import onnx


def domain_key(domain):
    return "" if domain == "ai.onnx" else domain


def dim_str(d):
    which = d.WhichOneof("value")
    if which == "dim_value":
        return str(d.dim_value) if d.dim_value >= 0 else "?"
    if which == "dim_param":
        return d.dim_param or "?"
    return "?"


def type_str(tp):
    which = tp.WhichOneof("value")
    if which is None:
        return "none"
    if which in ("tensor_type", "sparse_tensor_type"):
        tt = getattr(tp, which)
        dims = "[" + ",".join(dim_str(d) for d in tt.shape.dim) + "]" if tt.HasField("shape") else "?"
        return "%s(%d,%s)" % ("tensor" if which == "tensor_type" else "sparse", tt.elem_type, dims)
    if which in ("sequence_type", "optional_type"):
        inner = getattr(tp, which)
        name = "seq" if which == "sequence_type" else "opt"
        return "%s(%s)" % (name, type_str(inner.elem_type) if inner.HasField("elem_type") else "null")
    if which == "map_type":
        m = tp.map_type
        return "map(%d,%s)" % (m.key_type, type_str(m.value_type) if m.HasField("value_type") else "null")
    return "opaque"


def pack6(codes):
    out = bytearray((len(codes) * 6 + 7) // 8)
    for i, c in enumerate(codes):
        bit = i * 6
        v = (c & 0x3F) << (bit % 8)
        out[bit // 8] |= v & 0xFF
        if v >> 8:
            out[bit // 8 + 1] |= v >> 8
    return bytes(out)


def tensor_bytes(t):
    """The values in the raw_data layout (little-endian), from whichever field holds them."""
    dt = t.data_type
    if t.HasField("raw_data"):
        return t.raw_data
    if dt in (1, 14):
        return np.array(t.float_data, dtype="<f4").tobytes()
    if dt in (11, 15):
        return np.array(t.double_data, dtype="<f8").tobytes()
    if dt == 7:
        return np.array(t.int64_data, dtype="<i8").tobytes()
    if dt == 13:
        return np.array(t.uint64_data, dtype="<u8").tobytes()
    if dt == 12:
        return (np.array(t.uint64_data, dtype=np.uint64) & np.uint64(0xFFFFFFFF)).astype("<u4").tobytes()
    a = np.array(t.int32_data, dtype=np.int64)
    if dt == 6:
        return a.astype("<i4").tobytes()
    if dt in (4, 5, 10, 16):
        return (a & 0xFFFF).astype("<u2").tobytes()
    if dt == 9:
        return (a != 0).astype(np.uint8).tobytes()
    if dt in (27, 28):
        return pack6([int(x) for x in a])
    return (a & 0xFF).astype(np.uint8).tobytes()


def tensor_str(t):
    dims = "[" + ",".join(str(d) for d in t.dims) + "]"
    if t.data_type == 8:
        h = hashlib.sha256()
        for s in t.string_data:
            h.update(struct.pack("<Q", len(s)) + s)
        return "%d%s strings=%d sha256=%s" % (t.data_type, dims, len(t.string_data), h.hexdigest())
    return "%d%s sha256=%s" % (t.data_type, dims, hashlib.sha256(tensor_bytes(t)).hexdigest())


def sparse_str(s):
    return "values=%s indices=%s dims=[%s]" % (tensor_str(s.values), tensor_str(s.indices),
                                                ",".join(str(d) for d in s.dims))


def fbits(x):
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def attr_type(a):
    if a.type or a.ref_attr_name:
        return a.type
    for field, code in (("f", 1), ("i", 2), ("s", 3), ("t", 4), ("g", 5), ("sparse_tensor", 11), ("tp", 13)):
        if a.HasField(field):
            return code
    for field, code in (("floats", 6), ("ints", 7), ("strings", 8), ("tensors", 9), ("graphs", 10),
                        ("sparse_tensors", 12), ("type_protos", 14)):
        if len(getattr(a, field)):
            return code
    return 0


def dump_attr(a, ind, out, opsets):
    t = attr_type(a)
    head = "%sattr %s %d " % (ind, a.name, t)
    if a.ref_attr_name:
        out.append(head + "ref=" + a.ref_attr_name)
    elif t == 1:
        out.append(head + fbits(a.f))
    elif t == 2:
        out.append(head + str(a.i))
    elif t == 3:
        out.append(head + a.s.hex())
    elif t == 4:
        out.append(head + tensor_str(a.t))
    elif t == 5:
        out.append(head + "graph")
        dump_graph(a.g, ind + "  ", out, opsets)
    elif t == 6:
        out.append(head + "[" + ",".join(fbits(x) for x in a.floats) + "]")
    elif t == 7:
        out.append(head + "[" + ",".join(str(x) for x in a.ints) + "]")
    elif t == 8:
        out.append(head + "[" + ",".join(x.hex() for x in a.strings) + "]")
    elif t == 9:
        out.append(head + "tensors=%d" % len(a.tensors))
        out.extend(ind + "  tensor " + tensor_str(x) for x in a.tensors)
    elif t == 10:
        out.append(head + "graphs=%d" % len(a.graphs))
        for g in a.graphs:
            dump_graph(g, ind + "  ", out, opsets)
    elif t == 11:
        out.append(head + sparse_str(a.sparse_tensor))
    elif t == 12:
        out.append(head + "sparse_tensors=%d" % len(a.sparse_tensors))
        out.extend(ind + "  sparse " + sparse_str(x) for x in a.sparse_tensors)
    elif t == 13:
        out.append(head + type_str(a.tp))
    elif t == 14:
        out.append(head + "[" + ",".join(type_str(x) for x in a.type_protos) + "]")


def dump_node(index, n, ind, out, opsets):
    domain = domain_key(n.domain)
    out.append("%snode #%d name=%s op=%s:%s overload=%s opset=%d in=[%s] out=[%s]" % (
        ind, index, n.name, domain, n.op_type, getattr(n, "overload", ""), opsets.get(domain, 0),
        ",".join(n.input), ",".join(n.output)))
    for a in n.attribute:
        dump_attr(a, ind + "  ", out, opsets)


def dump_graph(g, ind, out, opsets):
    out.append("%sgraph %s" % (ind, g.name))
    ind2 = ind + "  "
    values = {}  # name -> [source, type]; dicts keep insertion order, which is the importer's value order
    for i in g.input:
        values[i.name] = ["input", type_str(i.type)]
        out.append("%sinput %s" % (ind2, i.name))
    for t in g.initializer:
        if t.name in values and values[t.name][0] == "input":
            values[t.name][0] = "input-default"
        else:
            values[t.name] = ["initializer", "none"]
        out.append("%sinit %s %s" % (ind2, t.name, tensor_str(t)))
    for s in g.sparse_initializer:
        values[s.values.name] = ["sparse", "none"]
        out.append("%ssparse %s %s" % (ind2, s.values.name, sparse_str(s)))
    for n in g.node:
        for o in n.output:
            if o:
                values[o] = ["node", "none"]
    for index, n in enumerate(g.node):
        dump_node(index, n, ind2, out, opsets)
    for o in g.output:
        out.append("%soutput %s" % (ind2, o.name))
    for vi in list(g.output) + list(g.value_info):
        if vi.name in values and values[vi.name][1] == "none":
            values[vi.name][1] = type_str(vi.type)
    for name, (source, tp) in values.items():
        out.append("%svalue %s %s %s" % (ind2, name, source, tp))


def opset_map(imports):
    return {domain_key(o.domain): o.version for o in imports}


def dump_opsets(opsets, ind, out):
    for domain in sorted(opsets):
        out.append("%sopset %s=%d" % (ind, domain or "ai.onnx", opsets[domain]))


def dump_model(m):
    out = ["model ir_version=%d producer=%s %s domain=%s model_version=%d" % (
        m.ir_version, m.producer_name, m.producer_version, m.domain, m.model_version)]
    opsets = opset_map(m.opset_import)
    dump_opsets(opsets, "", out)
    meta = {p.key: p.value for p in m.metadata_props}
    out.extend("meta %s=%s" % (k, meta[k]) for k in sorted(meta))
    dump_graph(m.graph, "", out, opsets)
    for f in m.functions:
        fo = opset_map(f.opset_import)
        out.append("function %s:%s overload=%s in=[%s] out=[%s] attrs=[%s]" % (
            f.domain, f.name, getattr(f, "overload", ""), ",".join(f.input), ",".join(f.output),
            ",".join(f.attribute)))
        dump_opsets(fo, "  ", out)
        for a in getattr(f, "attribute_proto", []):
            dump_attr(a, "  ", out, fo)
        for index, n in enumerate(f.node):
            dump_node(index, n, "  ", out, fo)
    return out


def main():
    for path in sys.argv[1:]:
        print("== " + path)
        print("\n".join(dump_model(onnx.load(path, load_external_data=False))))


if __name__ == "__main__":
    main()
