#!/usr/bin/env python3
"""Writes the quantized test models of issue 6 and the float models they come from (run with /usr/bin/python3).

    make_quantized_models.py [OUT_DIR]

OUT_DIR defaults to $ONEMODEL_CACHE/models (ONEMODEL_CACHE defaults to ~/.cache/onemodel). Six files, all seeded,
so every run writes the same bytes:

* cnn.onnx: a small image classifier, input x [batch, 3, 64, 64], output logits [batch, 10]: Conv 3->16 (3x3,
  stride 2) + Relu, Conv 16->32 (3x3, stride 2) + Relu, depthwise Conv 32 (3x3) + Relu, Conv 1x1 32->64 + Relu,
  GlobalAveragePool, Flatten, Gemm 64->10 (transB).
* cnn-qdq.onnx: its static QDQ form as ONNX Runtime's quantize_static writes it: every float activation that a Conv
  or Gemm reads or writes passes through QuantizeLinear/DequantizeLinear (uint8, per tensor, MinMax ranges that
  include 0, taken over a seeded calibration set of 16 images: smooth random fields plus noise); weights int8,
  symmetric, per output channel; biases int32 with the scale x_scale * w_scale of each channel.
* cnn-dynamic.onnx: its dynamic form: each Conv becomes DynamicQuantizeLinear(x) -> ConvInteger(x_q, w_q, x_zp, w_zp)
  -> Cast(float) -> Mul(x_scale * w_scale) -> Add(bias), the scales and bias shaped [C, 1, 1] to broadcast over the
  channels; weights uint8 (the type ONNX Runtime's ConvInteger takes), symmetric per output channel around one zero
  point of 128. The Gemm head stays float.
* encoder-fp32.onnx: the transformer encoder of make_transformer_encoder.py.
* encoder-dynamic.onnx: its dynamic form as quantize_dynamic writes it: each MatMul with a constant weight becomes
  DynamicQuantizeLinear(A) -> MatMulInteger(A_q, W_q, A_zp, W_zp) -> Cast(float) -> Mul(A_scale * W_scale), the
  bias Add kept after it; weights int8, symmetric, per column. The attention products (both operands computed)
  stay float.
* encoder-qdq.onnx: its static QDQ form: each of those 12 MatMuls reads QuantizeLinear/DequantizeLinear of its input
  (one pair per tensor, shared by the query, key and value products) and its output passes through a pair before the
  bias Add; activations uint8 per tensor from MinMax ranges over a seeded calibration batch (the float encoder run
  here in float64 numpy), weights int8 symmetric per column (DequantizeLinear axis 1). The attention products stay
  float, as in encoder-dynamic.

The qdq graph pass rewrites cnn-qdq's Conv and Gemm sites and encoder-qdq's MatMul sites to
QLinearConv/QLinearMatMul; matmul-integer-fusion turns each product chain of encoder-dynamic into one
MatMulIntegerToFloat (docs/models.md).
"""
import math
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


def write_cnn_dynamic(out_dir, weights):
    g = Graph()
    y = "x"
    for name, _, cout, k, stride, group in CONVS:
        q, x_scale, x_zero_point = y + ".q", y + ".scale", y + ".zero_point"
        g.nodes.append(h.make_node("DynamicQuantizeLinear", [y], [q, x_scale, x_zero_point], name=y + ".quantize"))
        wq, ws = weight_quant(weights[name + ".weight"], 0)
        w = g.const(name + ".weight.q", (wq.astype(np.int16) + 128).astype(np.uint8))
        channel = (cout, 1, 1)
        scale = g.node("Mul", [x_scale, g.const(name + ".weight.scale", ws.reshape(channel))], name + ".scale")
        acc = g.node("ConvInteger", [q, w, x_zero_point, g.const(name + ".weight.zero_point", np.uint8(128))],
                     name + ".int", kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        y = g.node("Cast", [acc], name + ".cast", to=T.FLOAT)
        y = g.node("Mul", [y, scale], name + ".scaled")
        y = g.node("Add", [y, g.const(name + ".bias", weights[name + ".bias"].reshape(channel))], name)
        y = g.node("Relu", [y], name + ".relu")
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y], "gap")], "pooled")
    g.node("Gemm", [y, g.const("fc.weight", weights["fc.weight"]), g.const("fc.bias", weights["fc.bias"])], "logits",
           transB=1)
    save(g, "cnn-dynamic", *cnn_io(), out_dir)


def copy_model(model):
    out = onnx.ModelProto()
    out.CopyFrom(model)
    return out


def evaluate(model, feeds, names):
    """Runs the float encoder's graph in float64 numpy (calibration only needs ranges); returns the named values.
    Serves exactly the operators make_transformer_encoder.py writes."""
    values = {t.name: nh.to_array(t).astype(np.float64) if t.data_type == T.FLOAT else nh.to_array(t)
              for t in model.graph.initializer}
    values.update(feeds)
    erf = np.vectorize(math.erf)

    def reshape(x, shape):
        return x.reshape([x.shape[i] if d == 0 else d for i, d in enumerate(shape)])

    def layer_norm(x, gamma, beta, epsilon):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + epsilon) * gamma + beta

    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    ops = {
        "Gather": lambda a, n: np.take(a[0], a[1], axis=0),
        "Shape": lambda a, n: np.array(a[0].shape[n["start"]:n["end"]], np.int64),
        "Slice": lambda a, n: a[0][int(a[1][0]):int(a[2][0])],
        "Add": lambda a, n: a[0] + a[1],
        "Sub": lambda a, n: a[0] - a[1],
        "Mul": lambda a, n: a[0] * a[1],
        "Div": lambda a, n: a[0] / a[1],
        "MatMul": lambda a, n: a[0] @ a[1],
        "Erf": lambda a, n: erf(a[0]),
        "Cast": lambda a, n: a[0].astype(np.float64),
        "Unsqueeze": lambda a, n: np.expand_dims(a[0], tuple(int(i) for i in a[1])),
        "Reshape": lambda a, n: reshape(a[0], a[1]),
        "Transpose": lambda a, n: a[0].transpose(n["perm"]),
        "Softmax": lambda a, n: softmax(a[0]),
        "LayerNormalization": lambda a, n: layer_norm(a[0], a[1], a[2], n["epsilon"]),
        "Identity": lambda a, n: a[0],
    }
    for node in model.graph.node:
        attrs = {a.name: h.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Slice" and len(node.input) > 3 and list(values[node.input[3]]) != [0]:
            raise ValueError("evaluate: only a Slice of axis 0 is served")
        values[node.output[0]] = ops[node.op_type]([values[i] for i in node.input], attrs)
    return {n: values[n] for n in names}


def calibration_tokens(batch=8, sequence=64):
    """Seeded token ids in the encoder's vocabulary, row r padded after sequence - 8r tokens (the recorded inputs'
    recipe, other draws)."""
    rng = np.random.default_rng(11)
    ids = rng.integers(0, make_transformer_encoder.VOCAB, (batch, sequence), dtype=np.int64)
    mask = np.ones((batch, sequence), np.int64)
    for r in range(batch):
        mask[r, max(1, sequence - 8 * r):] = 0
    return {"input_ids": ids, "attention_mask": mask}


def weight_matmuls(model):
    """The MatMul nodes whose second input is a 2-D initializer (the encoder's linears)."""
    weights = {t.name: t for t in model.graph.initializer}
    return [n for n in model.graph.node
            if n.op_type == "MatMul" and n.input[1] in weights and len(weights[n.input[1]].dims) == 2]


def replace_graph(model, nodes, name):
    """Sets the model's nodes, keeps only the initializers they read, names the graph and checks it."""
    graph = model.graph
    used = {i for n in nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    graph.name = name
    onnx.checker.check_model(model)


def quantize_weight_columns(graph, w):
    """Adds initializers for MatMul weight `w` quantized per output column; returns [q, scale, zero point] names."""
    q, scale = weight_quant(nh.to_array(w), 1)
    graph.initializer.extend([nh.from_array(q, w.name + ".q"), nh.from_array(scale, w.name + ".scale"),
                              nh.from_array(np.zeros(len(scale), np.int8), w.name + ".zero_point")])
    return [w.name + ".q", w.name + ".scale", w.name + ".zero_point"]


def rewrite_weight_matmuls(model, sites, name, rewrite):
    """Replaces each MatMul of `sites` by what rewrite(nodes, a, w, out) appends to `nodes`; keeps the other nodes."""
    site_names = {n.name for n in sites}
    weights = {t.name: t for t in model.graph.initializer}
    nodes = []
    for n in model.graph.node:
        if n.name in site_names:
            rewrite(nodes, n.input[0], weights[n.input[1]], n.output[0])
        else:
            nodes.append(n)
    replace_graph(model, nodes, name)


def write_encoder_qdq(out_dir, model):
    sites = weight_matmuls(model)
    ranges = evaluate(model, calibration_tokens(), {t for n in sites for t in (n.input[0], n.output[0])})
    graph = model.graph
    dequantized = {}

    def qdq(nodes, tensor, source, output):
        """QuantizeLinear then DequantizeLinear of `source` with the calibrated parameters of `tensor`."""
        scale, zero_point = activation_quant(ranges[tensor])
        graph.initializer.extend([nh.from_array(np.asarray(scale), tensor + ".scale"),
                                  nh.from_array(np.asarray(zero_point), tensor + ".zero_point")])
        params = [tensor + ".scale", tensor + ".zero_point"]
        nodes.append(h.make_node("QuantizeLinear", [source] + params, [tensor + ".q"], name=tensor + ".q"))
        nodes.append(h.make_node("DequantizeLinear", [tensor + ".q"] + params, [output], name=output))
        return output

    def rewrite(nodes, a, w, out):
        if a not in dequantized:
            dequantized[a] = qdq(nodes, a, a, a + ".dq")
        nodes.append(h.make_node("DequantizeLinear", quantize_weight_columns(graph, w), [w.name + ".dq"],
                                 name=w.name + ".dq", axis=1))
        nodes.append(h.make_node("MatMul", [dequantized[a], w.name + ".dq"], [out + ".float"], name=out + ".float"))
        qdq(nodes, out, out + ".float", out)

    rewrite_weight_matmuls(model, sites, "encoder-qdq", rewrite)
    onnx.save(model, os.path.join(out_dir, "encoder-qdq.onnx"))


def write_encoder_dynamic(out_dir, model):
    graph = model.graph
    quantized_inputs = {}

    def rewrite(nodes, a, w, out):
        if a not in quantized_inputs:
            quantized_inputs[a] = [a + ".q", a + ".scale", a + ".zero_point"]
            nodes.append(h.make_node("DynamicQuantizeLinear", [a], quantized_inputs[a], name=a + ".quantize"))
        aq, ascale, azp = quantized_inputs[a]
        wq, ws, wzp = quantize_weight_columns(graph, w)
        nodes.extend([
            h.make_node("Mul", [ascale, ws], [out + ".scale"], name=out + ".scale"),
            h.make_node("MatMulInteger", [aq, wq, azp, wzp], [out + ".int"], name=out + ".int"),
            h.make_node("Cast", [out + ".int"], [out + ".cast"], name=out + ".cast", to=T.FLOAT),
            h.make_node("Mul", [out + ".cast", out + ".scale"], [out], name=out),
        ])

    rewrite_weight_matmuls(model, weight_matmuls(model), "encoder-dynamic", rewrite)
    onnx.save(model, os.path.join(out_dir, "encoder-dynamic.onnx"))


def main():
    cache = os.environ.get("ONEMODEL_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "onemodel"))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(cache, "models")
    os.makedirs(out_dir, exist_ok=True)
    weights = cnn_weights()
    write_cnn(out_dir, weights)
    write_cnn_qdq(out_dir, weights)
    write_cnn_dynamic(out_dir, weights)
    encoder = make_transformer_encoder.build()
    onnx.save(encoder, os.path.join(out_dir, "encoder-fp32.onnx"))
    write_encoder_dynamic(out_dir, copy_model(encoder))
    write_encoder_qdq(out_dir, copy_model(encoder))


if __name__ == "__main__":
    main()
