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
TRAINING = "ai.onnx.preview.training"


def const(name, values, dtype=np.float32):
    return nh.from_array(np.array(values, dtype=dtype), name)


def save(name, nodes, inputs, outputs, initializers, opset=17, extra_opsets=()):
    g = h.make_graph(nodes, name, inputs, outputs, initializers)
    opsets = [h.make_opsetid("", opset)] + [h.make_opsetid(d, v) for d, v in extra_opsets]
    m = h.make_model(g, opset_imports=opsets, ir_version=8, producer_name="onemodel-golden")
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

# The graphs below cover the exact operators of issue 9, one output per operator (or per path of one) so that a
# differing row names it. Generated floats lie in [-1, 1] and generated integers in 0..9 (docs/cli.md), so the
# graphs scale them, round them to make ties and duplicates, and add special values where a path needs them.
INF, NAN = np.inf, np.nan
# 29 values: NaN, infinities, signed zeros, subnormals, values near 0 (expm1/log1p paths), the Shrink and
# ThresholdedRelu boundaries, and magnitudes where exp overflows or underflows.
specials = [NAN, INF, -INF, 0.0, -0.0, 1e-40, -1e-40, 1e-7, -1e-7, 1e-3, -1e-3, 0.5, -0.5, 0.2, -0.2, 0.3, -0.3,
            20.0, -20.0, 50.0, -50.0, 88.0, -88.0, 100.0, -104.0, 3.4e38, -3.4e38, 15.9, -87.3]
U32 = np.uint32

# Activations and element tests: v = [4 x ; specials] feeds every activation; BitShift on uint32 and uint8 with
# shifts below, at and above the element width; EyeLike off the diagonal.
save("activations", [
    h.make_node("Mul", ["x", "four"], ["x4"]),
    h.make_node("Concat", ["x4", "specials"], ["v"], axis=0),
    h.make_node("Elu", ["v"], ["elu"], alpha=0.7),
    h.make_node("Celu", ["v"], ["celu"], alpha=1.3),
    h.make_node("Selu", ["v"], ["selu"]),
    h.make_node("Softplus", ["v"], ["softplus"]),
    h.make_node("Softsign", ["v"], ["softsign"]),
    h.make_node("Shrink", ["v"], ["shrink"], bias=0.2, lambd=0.5),
    h.make_node("ThresholdedRelu", ["v"], ["thresholded_relu"], alpha=0.3),
    h.make_node("IsNaN", ["v"], ["isnan"]),
    h.make_node("IsInf", ["v"], ["isinf"], detect_positive=0),
    h.make_node("BitShift", ["big", "xu"], ["shl"], direction="LEFT"),
    h.make_node("BitShift", ["xu", "wide"], ["shr_wide"], direction="RIGHT"),
    h.make_node("BitShift", ["xb", "wide8"], ["shl8"], direction="LEFT"),
    h.make_node("EyeLike", ["x"], ["eye"], k=-1, dtype=T.INT32),
], [h.make_tensor_value_info("x", F, [3, 29]), h.make_tensor_value_info("xu", T.UINT32, [2, 13]),
    h.make_tensor_value_info("xb", T.UINT8, [11])],
   [h.make_tensor_value_info(n, F, None) for n in
    ["elu", "celu", "selu", "softplus", "softsign", "shrink", "thresholded_relu"]] +
   [h.make_tensor_value_info(n, T.BOOL, None) for n in ["isnan", "isinf"]] +
   [h.make_tensor_value_info(n, T.UINT32, None) for n in ["shl", "shr_wide"]] +
   [h.make_tensor_value_info("shl8", T.UINT8, None), h.make_tensor_value_info("eye", T.INT32, None)],
   [const("four", 4.0), const("specials", [specials]),
    const("big", [0xFFFFFFFF, 0x80000001, 0x9E3779B9, 1, 0, 0x7FFFFFFF, 0x12345678, 0xDEADBEEF, 3, 0x40000000,
                  0xFFFF, 0x10001, 0xCAFEF00D], U32),
    const("wide", [0, 1, 2, 7, 8, 30, 31, 32, 33, 63, 64, 1000, 0xFFFFFFFF], U32),
    const("wide8", [0, 1, 3, 6, 7, 8, 9, 31, 32, 200, 255], np.uint8)])

# Indexing: ScatterElements with duplicate and negative indices under add and mul (the update order shows in the
# bits) and without reduction; Compress along an axis and flattened; Unique sorted with its three index outputs
# over rounded values with NaN and signed zeros, and unsorted over rows; ReverseSequence; DepthToSpace in both
# modes and SpaceToDepth; MaxUnpool of MaxPool's indices, also re-based into a larger output_shape;
# NonMaxSuppression with tied scores; TfIdfVectorizer over unigrams and skip-bigrams.
save("indexing", [
    h.make_node("ScatterElements", ["x", "sidx", "supd"], ["scatter_add"], axis=0, reduction="add"),
    h.make_node("ScatterElements", ["x", "sidx", "supd"], ["scatter_mul"], axis=0, reduction="mul"),
    h.make_node("ScatterElements", ["x", "sidx1", "supd1"], ["scatter_none"], axis=1),
    h.make_node("Compress", ["x", "cond"], ["compress_axis"], axis=1),
    h.make_node("Compress", ["x", "cond"], ["compress_flat"]),
    h.make_node("Mul", ["x", "three"], ["x3"]),
    h.make_node("Round", ["x3"], ["xr"]),
    h.make_node("Reshape", ["xr", "flat"], ["xrf"]),
    h.make_node("Concat", ["xrf", "uspecials"], ["uin"], axis=0),
    h.make_node("Unique", ["uin"], ["unique", "unique_first", "unique_inverse", "unique_counts"], sorted=1),
    h.make_node("Round", ["x"], ["xr1"]),
    h.make_node("Concat", ["xr1", "xr1"], ["rows"], axis=0),
    h.make_node("Unique", ["rows"], ["unique_rows"], axis=0, sorted=0),
    h.make_node("ReverseSequence", ["t", "lens"], ["reverse_sequence"], batch_axis=1, time_axis=0),
    h.make_node("DepthToSpace", ["d"], ["depth_to_space_dcr"], blocksize=2, mode="DCR"),
    h.make_node("DepthToSpace", ["d"], ["depth_to_space_crd"], blocksize=2, mode="CRD"),
    h.make_node("SpaceToDepth", ["depth_to_space_crd"], ["space_to_depth"], blocksize=2),
    h.make_node("MaxPool", ["p"], ["pooled", "pool_idx"], kernel_shape=[2, 2], strides=[2, 2]),
    h.make_node("MaxUnpool", ["pooled", "pool_idx"], ["max_unpool"], kernel_shape=[2, 2], strides=[2, 2]),
    h.make_node("MaxUnpool", ["pooled", "pool_idx", "unpool_shape"], ["max_unpool_shape"], kernel_shape=[2, 2],
                strides=[2, 2]),
    h.make_node("Mul", ["s", "four"], ["s4"]),
    h.make_node("Round", ["s4"], ["s4r"]),
    h.make_node("Div", ["s4r", "four"], ["scores"]),
    h.make_node("NonMaxSuppression", ["boxes", "scores", "max_boxes", "iou", "min_score"], ["nms"]),
    h.make_node("TfIdfVectorizer", ["tokens"], ["tfidf"], mode="TFIDF", min_gram_length=1, max_gram_length=2,
                max_skip_count=2, ngram_counts=[0, 3], ngram_indexes=[6, 0, 5, 1, 4, 2, 3],
                pool_int64s=[2, 5, 9, 3, 2, 5, 3, 9, 6, 9, 9],
                weights=[0.3, 1.7, 0.1, 2.2, 0.9, 1.3, 0.7]),
], [h.make_tensor_value_info("x", F, [4, 6]), h.make_tensor_value_info("cond", T.BOOL, [5]),
    h.make_tensor_value_info("t", F, [5, 3, 2]), h.make_tensor_value_info("lens", T.INT64, [3]),
    h.make_tensor_value_info("d", F, [1, 8, 2, 3]), h.make_tensor_value_info("p", F, [1, 2, 4, 4]),
    h.make_tensor_value_info("boxes", F, [1, 9, 4]), h.make_tensor_value_info("s", F, [1, 2, 9]),
    h.make_tensor_value_info("tokens", T.INT64, [2, 12])],
   [h.make_tensor_value_info(n, F, None) for n in
    ["scatter_add", "scatter_mul", "scatter_none", "compress_axis", "compress_flat", "unique"]] +
   [h.make_tensor_value_info(n, T.INT64, None) for n in ["unique_first", "unique_inverse", "unique_counts"]] +
   [h.make_tensor_value_info(n, F, None) for n in
    ["unique_rows", "reverse_sequence", "depth_to_space_dcr", "depth_to_space_crd", "space_to_depth",
     "max_unpool", "max_unpool_shape"]] +
   [h.make_tensor_value_info("nms", T.INT64, None), h.make_tensor_value_info("tfidf", F, None)],
   [const("sidx", [[0, 3, 1, 0, 2, -1], [0, -4, 1, 3, 2, 3], [-4, 0, 1, 0, 2, -1]], np.int64),
    const("supd", [[0.1, 0.7, 1.3, -0.3, 2.9, 0.6], [0.2, 1.1, -1.7, 0.9, 0.3, 1.9],
                   [0.3, -0.9, 0.1, 3.7, -0.7, 0.7]]),
    const("sidx1", [[5, 0, -3], [1, 2, 0], [-1, 3, 4], [0, 4, 1]], np.int64),
    const("supd1", [[9.5, -8.25, 7.0], [6.5, -5.5, 4.25], [3.0, -2.5, 1.75], [0.5, -0.25, 11.0]]),
    const("three", 3.0), const("four", 4.0), const("flat", [-1], np.int64),
    const("uspecials", [NAN, -0.0, 0.0, INF, NAN, -INF, -0.0, 2.0]),
    const("unpool_shape", [1, 2, 5, 5], np.int64),
    const("max_boxes", [4], np.int64), const("iou", [0.3]), const("min_score", [-0.6])])

# Training arithmetic: BatchNormalization in training mode (batch statistics and running statistics),
# MeanVarianceNormalization over the default and non-contiguous axes, NegativeLogLikelihoodLoss with class
# weights and ignore_index (mean, and none), and the preview-training optimizers Adagrad, Momentum (Nesterov) and
# Adam (two tensors at once, step 7, so the powers of alpha and beta are taken).
save("training", [
    h.make_node("BatchNormalization", ["x", "bn_scale", "bn_bias", "bn_mean", "bn_var"],
                ["batch_norm", "batch_norm_mean", "batch_norm_var"], training_mode=1, momentum=0.8, epsilon=1e-3),
    h.make_node("MeanVarianceNormalization", ["x"], ["mvn"]),
    h.make_node("MeanVarianceNormalization", ["x"], ["mvn_axes13"], axes=[1, 3]),
    h.make_node("LogSoftmax", ["logits"], ["logp"], axis=1),
    h.make_node("NegativeLogLikelihoodLoss", ["logp", "target", "class_weight"], ["nll_mean"], ignore_index=3),
    h.make_node("NegativeLogLikelihoodLoss", ["logp", "target"], ["nll_none"], reduction="none", ignore_index=7),
    h.make_node("Mul", ["w", "grad_scale"], ["g"]),
    h.make_node("Mul", ["w", "w"], ["w2"]),
    h.make_node("Mul", ["q", "q"], ["q2"]),
    h.make_node("Adagrad", ["rate", "step5", "w", "g", "w2"], ["adagrad_x", "adagrad_h"], domain=TRAINING,
                decay_factor=0.1, epsilon=1e-6, norm_coefficient=0.01),
    h.make_node("Momentum", ["rate", "step5", "w", "g", "w"], ["momentum_x", "momentum_v"], domain=TRAINING,
                alpha=0.9, beta=0.7, mode="nesterov", norm_coefficient=0.02),
    h.make_node("Adam", ["rate", "step7", "w", "q", "g", "q", "w", "q2", "w2", "q2"],
                ["adam_x1", "adam_x2", "adam_v1", "adam_v2", "adam_h1", "adam_h2"], domain=TRAINING,
                alpha=0.85, beta=0.95, epsilon=1e-5, norm_coefficient=0.03, norm_coefficient_post=0.001),
], [h.make_tensor_value_info("x", F, [2, 3, 5, 4]), h.make_tensor_value_info("logits", F, [3, 10, 4]),
    h.make_tensor_value_info("target", T.INT64, [3, 4]), h.make_tensor_value_info("w", F, [9]),
    h.make_tensor_value_info("q", F, [2, 5])],
   [h.make_tensor_value_info(n, F, None) for n in
    ["batch_norm", "batch_norm_mean", "batch_norm_var", "mvn", "mvn_axes13", "nll_mean", "nll_none", "adagrad_x",
     "adagrad_h", "momentum_x", "momentum_v", "adam_x1", "adam_x2", "adam_v1", "adam_v2", "adam_h1", "adam_h2"]],
   [const("bn_scale", [0.5, 1.25, -0.75]), const("bn_bias", [0.1, -0.2, 0.3]), const("bn_mean", [0.05, -0.1, 0.2]),
    const("bn_var", [0.9, 1.1, 0.3]), const("class_weight", np.linspace(0.3, 2.1, 10)),
    const("grad_scale", np.linspace(-1.3, 0.7, 9)), const("rate", 0.1), const("step5", 5, np.int64),
    const("step7", 7, np.int64)], extra_opsets=[(TRAINING, 1)])

# Linear algebra: Det by pivoted LU on generated matrices plus fixed noise (generated rows are nearly linearly
# dependent) and on small integer matrices (tied pivots, a singular one), Einsum as a batched product, a batched
# trace (repeated label) and an outer product with an ellipsis.
linalg_rng = np.random.default_rng(9)
save("linalg", [
    h.make_node("Add", ["m", "m_noise"], ["mn"]),
    h.make_node("Det", ["mn"], ["det"]),
    h.make_node("Mul", ["n", "two"], ["n2"]),
    h.make_node("Round", ["n2"], ["nr"]),
    h.make_node("Add", ["nr", "n_ints"], ["ni"]),
    h.make_node("Det", ["ni"], ["det_integer"]),
    h.make_node("Einsum", ["m", "k"], ["einsum_bmm"], equation="bij,bjk->bik"),
    h.make_node("Einsum", ["m"], ["einsum_trace"], equation="bii->b"),
    h.make_node("Einsum", ["k", "e"], ["einsum_outer"], equation="...i,j->...ij"),
], [h.make_tensor_value_info("m", F, [3, 4, 4]), h.make_tensor_value_info("n", F, [4, 3, 3]),
    h.make_tensor_value_info("k", F, [3, 4, 5]), h.make_tensor_value_info("e", F, [3])],
   [h.make_tensor_value_info(n, F, None) for n in
    ["det", "det_integer", "einsum_bmm", "einsum_trace", "einsum_outer"]],
   [const("two", 2.0), const("m_noise", linalg_rng.normal(size=[3, 4, 4])),
    const("n_ints", [[[1, 2, -3], [-1, 0, 1], [1, 1, 0]], [[2, -1, 0], [-2, 1, 3], [0, 2, 2]],
                     [[1, 1, 1], [1, 1, 1], [0, 1, 2]], [[0, 3, -3], [3, 0, 1], [-3, 1, 0]]])])

# Scatter exists in opsets 9 and 10 only (ScatterElements replaced it), hence a graph of its own.
save("scatter10", [
    h.make_node("Scatter", ["x", "idx", "upd"], ["scatter"], axis=1),
], [h.make_tensor_value_info("x", F, [3, 5])], [h.make_tensor_value_info("scatter", F, None)],
   [const("idx", [[4, 0, 2], [1, 3, 0]], np.int64), const("upd", [[1.5, -2.5, 3.5], [-4.5, 5.5, -6.5]])], opset=10)
print("ok")
