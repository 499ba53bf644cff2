#!/usr/bin/python3
"""Writes one single-Conv model per distinct depthwise layer of the OCR models (det at 1x3x640x640, cls at
1x3x48x192) into DIR, with the layer's real weights, and a layers.tsv listing name, input shape, weight shape,
strides, pads and the multiply-add count. tools/bench/depthwise.mjs times them.
   /usr/bin/python3 tools/bench/make_depthwise_layers.py MODELS_DIR OUT_DIR"""
import os
import sys

import onnx
from onnx import helper, shape_inference, numpy_helper

MODELS = [("det", [1, 3, 640, 640]), ("cls", [1, 3, 48, 192])]


def layers_of(path, input_shape):
    model = onnx.load(path)
    for dim, value in zip(model.graph.input[0].type.tensor_type.shape.dim, input_shape):
        dim.Clear()
        dim.dim_value = value
    inferred = shape_inference.infer_shapes(model)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(inferred.graph.value_info) + list(inferred.graph.input)}
    constants = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            constants[node.output[0]] = node.attribute[0].t
    seen = set()
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        weight = constants[node.input[1]]
        if attrs.get("group", 1) == 1 or weight.dims[1] != 1:
            continue
        key = (tuple(shapes[node.input[0]]), tuple(weight.dims), tuple(attrs.get("strides", [1, 1])),
               tuple(attrs.get("pads", [0, 0, 0, 0])))
        if key in seen:
            continue
        seen.add(key)
        yield key, attrs, weight


def main():
    models_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name, input_shape in MODELS:
        for index, ((x_shape, w_shape, strides, pads), attrs, weight) in enumerate(
                layers_of(os.path.join(models_dir, name + ".onnx"), input_shape)):
            w = numpy_helper.to_array(weight)
            n, c, h, wd = x_shape
            kh, kw = w_shape[2], w_shape[3]
            oh = (h + pads[0] + pads[2] - kh) // strides[0] + 1
            ow = (wd + pads[1] + pads[3] - kw) // strides[1] + 1
            macs = n * w_shape[0] * oh * ow * kh * kw
            layer = f"{name}-dw{index}"
            node = helper.make_node("Conv", ["x", "w"], ["y"], group=attrs["group"], kernel_shape=[kh, kw],
                                    strides=list(strides), pads=list(pads))
            graph = helper.make_graph(
                [node], layer, [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x_shape))],
                [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
                [numpy_helper.from_array(w, "w")])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
            model.ir_version = 8
            onnx.save(model, os.path.join(out_dir, layer + ".onnx"))
            shape = "x".join(map(str, x_shape))
            rows.append(f"{layer}\t{shape}\t{kh}x{kw}/{strides[0]}x{strides[1]}\t{macs}")
    with open(os.path.join(out_dir, "layers.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
