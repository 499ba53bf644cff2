#!/usr/bin/env python3
"""Writes the per-family graphs of the golden hashes into testdata/golden-models/ (run with /usr/bin/python3).

Each graph chains many exact operators of one family, so tools/golden.sh checks their exact-mode bits on every
target. Inputs are the CLI's generated inputs (docs/cli.md), so no input files are needed."""
import os
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "golden-models")
F = T.FLOAT


def const(name, values, dtype=np.float32):
    return nh.from_array(np.array(values, dtype=dtype), name)


def save(name, nodes, inputs, outputs, initializers, opset=17):
    g = h.make_graph(nodes, name, inputs, outputs, initializers)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], ir_version=8, producer_name="onemodel-golden")
    # Outputs are declared without shapes (the runtime infers them), which onnx.checker 1.12 refuses: not checked.
    onnx.save(m, os.path.join(out_dir, name + ".onnx"))


# Element-wise: arithmetic with broadcasting, comparisons and Where, rounding, the exact transcendentals.
save("elementwise", [
    h.make_node("Add", ["x", "y"], ["a"]),
    h.make_node("Mul", ["a", "x"], ["b"]),
    h.make_node("Div", ["b", "y"], ["c"]),
    h.make_node("Sub", ["c", "x"], ["d"]),
    h.make_node("Max", ["d", "a", "y"], ["e"]),
    h.make_node("Min", ["e", "b"], ["f"]),
    h.make_node("Clip", ["f", "lo", "hi"], ["g"]),
    h.make_node("Greater", ["x", "y"], ["gt"]),
    h.make_node("Neg", ["x"], ["nx"]),
    h.make_node("Where", ["gt", "g", "nx"], ["w"]),
    h.make_node("Abs", ["w"], ["aw"]),
    h.make_node("Sqrt", ["aw"], ["s"]),
    h.make_node("Mul", ["s", "three"], ["s3"]),
    h.make_node("Round", ["s3"], ["r"]),
    h.make_node("Sigmoid", ["c"], ["sg"]),
    h.make_node("Tanh", ["d"], ["th"]),
    h.make_node("Erf", ["b"], ["ef"]),
    h.make_node("Exp", ["nx"], ["ex"]),
    h.make_node("Log", ["aw"], ["lg"]),
    h.make_node("Relu", ["lg"], ["rl"]),
    h.make_node("Sum", ["sg", "th", "ef", "ex", "rl"], ["sum"]),
    h.make_node("Mean", ["sum", "r"], ["mean"]),
    h.make_node("HardSwish", ["mean"], ["hs"]),
    h.make_node("LeakyRelu", ["d"], ["lr"], alpha=0.1),
    h.make_node("Reciprocal", ["y"], ["rc"]),
    h.make_node("Cast", ["r"], ["ri"], to=T.INT32),
], [h.make_tensor_value_info("x", F, [4, 37]), h.make_tensor_value_info("y", F, [37])],
   [h.make_tensor_value_info(n, F, None) for n in ["hs", "lr", "rc", "lg"]] +
   [h.make_tensor_value_info("ri", T.INT32, None)],
   [const("lo", -2.5), const("hi", 3.25), const("three", 3.0)])

# Shape and indexing: transposes, slices, pads, gathers, concatenation, TopK.
save("shape", [
    h.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1, 3]),
    h.make_node("Slice", ["t", "starts", "ends", "axes", "steps"], ["sl"]),
    h.make_node("Pad", ["sl", "pads"], ["pd"], mode="reflect"),
    h.make_node("Gather", ["x", "idx"], ["ga"], axis=3),
    h.make_node("Concat", ["ga", "x"], ["cc"], axis=3),
    h.make_node("Reshape", ["cc", "shape"], ["rs"]),
    h.make_node("TopK", ["rs", "k"], ["tv", "ti"], axis=1),
    h.make_node("Expand", ["y", "eshape"], ["ex"]),
    h.make_node("Tile", ["ex", "reps"], ["tl"]),
    h.make_node("Split", ["tl"], ["s0", "s1"], axis=1),
    h.make_node("GatherElements", ["s0", "gidx"], ["ge"], axis=1),
], [h.make_tensor_value_info("x", F, [2, 3, 5, 7]), h.make_tensor_value_info("y", F, [1, 6])],
   [h.make_tensor_value_info(n, F, None) for n in ["pd", "tv", "s1", "ge"]] +
   [h.make_tensor_value_info("ti", T.INT64, None)],
   [const("starts", [1, -1], np.int64), const("ends", [5, -8], np.int64), const("axes", [1, 3], np.int64),
    const("steps", [2, -2], np.int64), const("pads", [0, 0, 1, 2, 0, 0, 3, 1], np.int64),
    const("idx", [6, 0, -1, 3], np.int64), const("shape", [6, 55], np.int64), const("k", [9], np.int64),
    const("eshape", [4, 6], np.int64), const("reps", [1, 3], np.int64),
    const("gidx", [[0, 8, 3], [1, 1, 2], [5, 4, 7], [8, 0, 0]], np.int64)])

# Reductions and normalisations: the canonical sum order, the norm step order, arg-reductions, cumulative sums.
save("norms", [
    h.make_node("LayerNormalization", ["x", "scale", "bias"], ["ln"], axis=-1, epsilon=1e-5),
    h.make_node("ReduceSum", ["x", "axes1"], ["rsum"], keepdims=0),
    h.make_node("ReduceMean", ["ln"], ["rmean"], axes=[2], keepdims=1),
    h.make_node("ReduceL2", ["x"], ["rl2"], axes=[0, 2], keepdims=0),
    h.make_node("ReduceMax", ["x"], ["rmax"], axes=[1], keepdims=0),
    h.make_node("ReduceLogSumExp", ["x"], ["rlse"], axes=[2], keepdims=0),
    h.make_node("Softmax", ["x"], ["sm"], axis=-1),
    h.make_node("LogSoftmax", ["x"], ["lsm"], axis=1),
    h.make_node("ArgMax", ["x"], ["am"], axis=2, keepdims=0),
    h.make_node("CumSum", ["x", "cax"], ["cs"], reverse=1),
    h.make_node("InstanceNormalization", ["x", "iscale", "ibias"], ["inn"], epsilon=1e-3),
    h.make_node("Sub", ["sm", "rmean"], ["smd"]),
], [h.make_tensor_value_info("x", F, [3, 5, 40])],
   [h.make_tensor_value_info(n, F, None) for n in ["ln", "rsum", "rl2", "rmax", "rlse", "lsm", "cs", "inn", "smd"]] +
   [h.make_tensor_value_info("am", T.INT64, None)],
   [const("scale", np.linspace(0.5, 1.5, 40)), const("bias", np.linspace(-0.25, 0.25, 40)),
    const("axes1", [1], np.int64), const("cax", 2, np.int64),
    const("iscale", [0.5, 1.0, 1.5, 2.0, 2.5]), const("ibias", [0.1, 0.2, 0.3, 0.4, 0.5])])

# int8: QuantizeLinear (per tensor and per axis), QLinearConv (a dense layer, then a depthwise one on the direct
# kernel), ConvInteger (depthwise, int8 activations), DequantizeLinear (per axis), QLinearMatMul, MatMulInteger
# with per-column zero points, and DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul -> Add, which the
# matmul-integer-fusion pass turns into MatMulIntegerToFloat. Weights come from a seeded generator.
rng = np.random.default_rng(6)
U8, I8, I32 = np.uint8, np.int8, np.int32


def q8(shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


save("int8", [
    h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["qx"]),
    h.make_node("QLinearConv", ["qx", "sx", "zx", "w1", "sw1", "zw1", "s1", "z1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
    h.make_node("QLinearConv", ["c1", "s1", "z1", "wd", "swd", "zwd", "s2", "z2", "bd"], ["dw"], group=16,
                strides=[2, 2], pads=[1, 1, 1, 1]),
    h.make_node("QuantizeLinear", ["x", "sx", "zxs"], ["qxs"]),
    h.make_node("ConvInteger", ["qxs", "wci", "zxs", "zwci"], ["ci"], group=8, pads=[2, 1, 2, 3],
                dilations=[1, 2]),
    h.make_node("DequantizeLinear", ["dw", "s2", "z2"], ["dq"]),
    h.make_node("QuantizeLinear", ["dq", "sa", "za"], ["qa"], axis=1),
    h.make_node("DequantizeLinear", ["qa", "sa", "za"], ["dqa"], axis=1),
    h.make_node("Reshape", ["qa", "shape2"], ["qa2"]),
    h.make_node("QLinearMatMul", ["qa2", "sm", "zm", "wm", "swm", "zwm", "sym", "zym"], ["qm"]),
    h.make_node("Reshape", ["c1", "shape2c"], ["c1r"]),
    h.make_node("MatMulInteger", ["c1r", "wi", "zi", "zwi"], ["mi"]),
    h.make_node("Reshape", ["dqa", "shape2"], ["f"]),
    h.make_node("DynamicQuantizeLinear", ["f"], ["fq", "fs", "fz"]),
    h.make_node("MatMulInteger", ["fq", "wf", "fz"], ["fi"]),
    h.make_node("Cast", ["fi"], ["ff"], to=F),
    h.make_node("Mul", ["fs", "swf"], ["fscale"]),
    h.make_node("Mul", ["ff", "fscale"], ["fm"]),
    h.make_node("Add", ["fm", "bf"], ["mf"]),
], [h.make_tensor_value_info("x", F, [1, 8, 13, 15])],
   [h.make_tensor_value_info(n, T.UINT8, None) for n in ["c1", "dw", "qm"]] +
   [h.make_tensor_value_info(n, T.INT32, None) for n in ["ci", "mi"]] +
   [h.make_tensor_value_info("qa", T.INT8, None)] +
   [h.make_tensor_value_info(n, F, None) for n in ["dqa", "mf"]],
   [const("sx", 1.0 / 127.0), const("zx", 128, U8), const("zxs", -3, I8),
    const("w1", q8([16, 8, 3, 3], I8), I8), const("sw1", np.linspace(0.002, 0.005, 16)),
    const("zw1", np.zeros(16), I8), const("s1", 0.04), const("z1", 120, U8),
    const("b1", rng.integers(-2000, 2000, 16), I32),
    const("wd", q8([16, 1, 3, 3], U8), U8), const("swd", np.linspace(0.003, 0.006, 16)),
    const("zwd", rng.integers(100, 156, 16), U8), const("s2", 0.05), const("z2", 131, U8),
    const("bd", rng.integers(-500, 500, 16), I32),
    const("wci", q8([8, 1, 5, 5], I8), I8), const("zwci", 2, I8),
    const("sa", np.linspace(0.01, 0.03, 16)), const("za", rng.integers(-10, 10, 16), I8),
    const("shape2", [16, 56], np.int64), const("sm", 0.02), const("zm", -1, I8),
    const("wm", q8([56, 10], I8), I8), const("swm", np.linspace(0.001, 0.002, 10)),
    const("zwm", np.zeros(10), I8), const("sym", 0.3), const("zym", 128, U8),
    const("shape2c", [16, 195], np.int64), const("wi", q8([195, 12], U8), U8), const("zi", 118, U8),
    const("zwi", rng.integers(120, 136, 12), U8),
    const("wf", q8([56, 24], I8), I8), const("swf", 0.004), const("bf", np.linspace(-1.0, 1.0, 24))])
print("ok")
