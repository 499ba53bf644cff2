#!/usr/bin/env python3
"""Writes the float32 twin of a float16 model (run with /usr/bin/python3), the reference of the fp16 gate.

    widen_fp16_model.py IN.onnx OUT.onnx

Every float16 initializer, Constant value and value_info becomes float32 (widening is exact), and every Cast to
float16 becomes a Cast to float32, so the twin computes the same graph with float32 activations and the very same
weights. The gate of fp16.md compares an engine's float16 output with this twin's output: the difference is the
rounding of the activations, which is what an fp16 engine is judged on.
"""
import sys

import onnx
from onnx import TensorProto as T
from onnx import numpy_helper as nh


def widen_tensor(tensor):
    if tensor.data_type != T.FLOAT16:
        return tensor
    wide = nh.from_array(nh.to_array(tensor).astype("float32"), tensor.name)
    tensor.CopyFrom(wide)
    return tensor


def widen_graph(graph):
    for init in graph.initializer:
        widen_tensor(init)
    for info in list(graph.value_info) + list(graph.input) + list(graph.output):
        if info.type.tensor_type.elem_type == T.FLOAT16:
            info.type.tensor_type.elem_type = T.FLOAT
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                widen_tensor(attr.t)
            elif attr.type == onnx.AttributeProto.GRAPH:
                widen_graph(attr.g)
            elif node.op_type == "Cast" and attr.name == "to" and attr.i == T.FLOAT16:
                attr.i = T.FLOAT


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = onnx.load(sys.argv[1])
    widen_graph(model.graph)
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
