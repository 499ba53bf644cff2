#!/usr/bin/env python3
"""Writes the quantized test models of issue 6 and the float models they come from (run with /usr/bin/python3).

    make_quantized_models.py [OUT_DIR]

OUT_DIR defaults to $ONEMODEL_CACHE/models (ONEMODEL_CACHE defaults to ~/.cache/onemodel). Four files, all seeded,
so every run writes the same bytes:

* cnn.onnx: a small image classifier, input x [batch, 3, 64, 64], output logits [batch, 10]: Conv 3->16 (3x3,
  stride 2) + Relu, Conv 16->32 (3x3, stride 2) + Relu, depthwise Conv 32 (3x3) + Relu, Conv 1x1 32->64 + Relu,
  GlobalAveragePool, Flatten, Gemm 64->10 (transB).
* cnn-qdq.onnx: its static QDQ form as ONNX Runtime's quantize_static writes it: every float activation that a Conv
  or Gemm reads or writes passes through QuantizeLinear/DequantizeLinear (uint8, per tensor, MinMax ranges that
  include 0, taken over a seeded calibration set of 16 images: smooth random fields plus noise); weights int8,
  symmetric, per output channel; biases int32 with the scale x_scale * w_scale of each channel.
* encoder-fp32.onnx: the transformer encoder of make_transformer_encoder.py.
* encoder-dynamic.onnx: its dynamic form as quantize_dynamic writes it: each MatMul with a constant weight becomes
  DynamicQuantizeLinear(A) -> MatMulInteger(A_q, W_q, A_zp, W_zp) -> Cast(float) -> Mul(A_scale * W_scale), the
  bias Add kept after it; weights int8, symmetric, per column. The attention products (both operands computed)
  stay float.

The qdq graph pass rewrites cnn-qdq's Conv and Gemm sites to QLinearConv/QLinearMatMul; matmul-integer-fusion
turns each product chain of encoder-dynamic into one MatMulIntegerToFloat (docs/models.md).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_transformer_encoder  # noqa: E402  (the encoder's builder)

IMAGE = 64
CLASSES = 10
# (name, in channels, out channels, kernel, stride, group); every conv is followed by Relu.
CONVS = [("conv1", 3, 16, 3, 2, 1), ("conv2", 16, 32, 3, 2, 1), ("conv3", 32, 32, 3, 1, 32), ("conv4", 32, 64, 1, 1, 1)]


def cnn_weights():
    rng = np.random.default_rng(20261201)
    weights = {}
    for name, cin, cout, k, _, group in CONVS:
        fan_in = cin // group * k * k
        weights[name + ".weight"] = rng.normal(0, (2.0 / fan_in) ** 0.5, (cout, cin // group, k, k)).astype(np.float32)
        weights[name + ".bias"] = rng.normal(0, 0.05, cout).astype(np.float32)
    weights["fc.weight"] = rng.normal(0, 0.125, (CLASSES, 64)).astype(np.float32)
    weights["fc.bias"] = rng.normal(0, 0.05, CLASSES).astype(np.float32)
    return weights


def conv2d(x, w, b, stride, group):
    """NCHW convolution with padding k // 2, in float64 (calibration only needs ranges)."""
    n, c, height, width = x.shape
    cout, cin_g, k, _ = w.shape
    pad = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (height + 2 * pad - k) // stride + 1, (width + 2 * pad - k) // stride + 1
    out = np.empty((n, cout, oh, ow))
    per_group = cout // group
    for g in range(group):
        xs = xp[:, g * cin_g:(g + 1) * cin_g]
        cols = np.stack([xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                         for i in range(k) for j in range(k)], axis=2)  # n, cin_g, k*k, oh, ow
        wg = w[g * per_group:(g + 1) * per_group].reshape(per_group, cin_g, k * k)
        out[:, g * per_group:(g + 1) * per_group] = np.einsum("ncpij,ocp->noij", cols, wg)
    return out + b[None, :, None, None]


def cnn_activations(x, weights):
    """The float tensors a Conv or Gemm reads or writes, by the names the QDQ graph gives them."""
    acts = {"x": x}
    y = x
    for name, _, _, _, stride, group in CONVS:
        y = conv2d(y, weights[name + ".weight"], weights[name + ".bias"], stride, group)
        acts[name] = y
        y = np.maximum(y, 0)
        acts[name + ".relu"] = y
    pooled = y.mean(axis=(2, 3))
    acts["pooled"] = pooled
    acts["logits"] = pooled @ weights["fc.weight"].T + weights["fc.bias"]
    return acts


def calibration_images(count=16):
    """Seeded image-like inputs: an 8x8x3 normal field expanded 8 times plus noise of 0.25."""
    rng = np.random.default_rng(7)
    field = rng.normal(0, 1, (count, 3, IMAGE // 8, IMAGE // 8))
    return np.repeat(np.repeat(field, 8, axis=2), 8, axis=3) + rng.normal(0, 0.25, (count, 3, IMAGE, IMAGE))


def activation_quant(values):
    """uint8 scale and zero point of a MinMax range widened to include 0."""
    lo, hi = min(0.0, float(values.min())), max(0.0, float(values.max()))
    scale = np.float32((hi - lo) / 255 if hi > lo else 1.0)
    zero_point = int(np.clip(np.round(-lo / scale), 0, 255))
    return scale, np.uint8(zero_point)


def weight_quant(w, axis):
    """int8 symmetric per-channel quantization along `axis`: (q, scale vector)."""
    reduce = tuple(a for a in range(w.ndim) if a != axis)
    scale = (np.abs(w).max(axis=reduce) / 127).astype(np.float32)
    scale[scale == 0] = 1
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


class Graph:
    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, value):
        self.inits.append(nh.from_array(np.asarray(value), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(h.make_node(op, inputs, [output], name=output, **attrs))
        return output


def save(graph, name, inputs, outputs, out_dir, opset=17):
    model = h.make_model(h.make_graph(graph.nodes, name, inputs, outputs, graph.inits),
                         opset_imports=[h.make_opsetid("", opset)], ir_version=8, producer_name="onemodel-" + name)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))


def cnn_io():
    return ([h.make_tensor_value_info("x", T.FLOAT, ["batch", 3, IMAGE, IMAGE])],
            [h.make_tensor_value_info("logits", T.FLOAT, ["batch", CLASSES])])


def write_cnn(out_dir, weights):
    g = Graph()
    y = "x"
    for name, _, _, k, stride, group in CONVS:
        y = g.node("Conv", [y, g.const(name + ".weight", weights[name + ".weight"]),
                            g.const(name + ".bias", weights[name + ".bias"])], name,
                   kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        y = g.node("Relu", [y], name + ".relu")
    y = g.node("GlobalAveragePool", [y], "gap")
    y = g.node("Flatten", [y], "pooled")
    g.node("Gemm", [y, g.const("fc.weight", weights["fc.weight"]), g.const("fc.bias", weights["fc.bias"])], "logits",
           transB=1)
    save(g, "cnn", *cnn_io(), out_dir)


def write_cnn_qdq(out_dir, weights):
    ranges = cnn_activations(calibration_images(), weights)
    g = Graph()
    scales = {}

    def qdq(tensor, output):
        """Q then DQ of a float activation with its calibrated parameters; returns the DQ output."""
        scale, zero_point = activation_quant(ranges[tensor])
        scales[tensor] = scale
        s, z = g.const(tensor + ".scale", scale), g.const(tensor + ".zero_point", zero_point)
        q = g.node("QuantizeLinear", [tensor, s, z], tensor + ".q")
        return g.node("DequantizeLinear", [q, s, z], output)

    def weight_and_bias(name, input_scale):
        wq, ws = weight_quant(weights[name + ".weight"], 0)
        w = g.node("DequantizeLinear", [g.const(name + ".weight.q", wq), g.const(name + ".weight.scale", ws),
                                        g.const(name + ".weight.zero_point", np.zeros(len(ws), np.int8))],
                   name + ".weight.dq", axis=0)
        bias_scale = np.float32(input_scale) * ws  # float32 products, as the bias scale must be
        bq = np.round(weights[name + ".bias"] / bias_scale).astype(np.int32)
        b = g.node("DequantizeLinear", [g.const(name + ".bias.q", bq), g.const(name + ".bias.scale", bias_scale)],
                   name + ".bias.dq", axis=0)
        return w, b

    y = qdq("x", "x.dq")
    for name, _, _, k, stride, group in CONVS:
        w, b = weight_and_bias(name, scales[y[:-3]])
        g.node("Conv", [y, w, b], name, kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        r = g.node("Relu", [qdq(name, name + ".dq")], name + ".relu")
        y = qdq(r, r + ".dq") if name != CONVS[-1][0] else r
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y], "gap")], "pooled")
    y = qdq(y, "pooled.dq")
    w, b = weight_and_bias("fc", scales["pooled"])
    g.node("Gemm", [y, w, b], "logits.float", transB=1)
    ranges["logits.float"] = ranges["logits"]
    qdq("logits.float", "logits")
    save(g, "cnn-qdq", *cnn_io(), out_dir)


def write_encoders(out_dir):
    model = make_transformer_encoder.build()
    onnx.save(model, os.path.join(out_dir, "encoder-fp32.onnx"))
    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    nodes, quantized_inputs = [], {}
    for n in graph.node:
        w = weights.get(n.input[1]) if n.op_type == "MatMul" else None
        if w is None or len(w.dims) != 2:
            nodes.append(n)
            continue
        a, out = n.input[0], n.output[0]
        if a not in quantized_inputs:
            quantized_inputs[a] = [a + ".q", a + ".scale", a + ".zero_point"]
            nodes.append(h.make_node("DynamicQuantizeLinear", [a], quantized_inputs[a], name=a + ".quantize"))
        aq, ascale, azp = quantized_inputs[a]
        wq, ws = weight_quant(nh.to_array(w), 1)
        graph.initializer.extend([nh.from_array(wq, w.name + ".q"), nh.from_array(ws, w.name + ".scale"),
                                  nh.from_array(np.zeros(len(ws), np.int8), w.name + ".zero_point")])
        nodes += [
            h.make_node("Mul", [ascale, w.name + ".scale"], [out + ".scale"], name=out + ".scale"),
            h.make_node("MatMulInteger", [aq, w.name + ".q", azp, w.name + ".zero_point"], [out + ".int"],
                        name=out + ".int"),
            h.make_node("Cast", [out + ".int"], [out + ".cast"], name=out + ".cast", to=T.FLOAT),
            h.make_node("Mul", [out + ".cast", out + ".scale"], [out], name=out),
        ]
    used = {i for n in nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    graph.name = "encoder-dynamic"
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out_dir, "encoder-dynamic.onnx"))


def main():
    cache = os.environ.get("ONEMODEL_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "onemodel"))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(cache, "models")
    os.makedirs(out_dir, exist_ok=True)
    weights = cnn_weights()
    write_cnn(out_dir, weights)
    write_cnn_qdq(out_dir, weights)
    write_encoders(out_dir)


if __name__ == "__main__":
    main()
