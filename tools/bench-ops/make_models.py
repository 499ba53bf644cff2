#!/usr/bin/env python3
"""Writes the operator benchmark models (tools/bench-ops/run.mjs) into the directory given as argv[1]."""
import os
import sys
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)


def save(name, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8), os.path.join(out, name + ".onnx"))


F = T.FLOAT
save("add-broadcast-1M", [h.make_node("Add", ["x", "y"], ["z"])],
     [h.make_tensor_value_info("x", F, [1000, 1000]), h.make_tensor_value_info("y", F, [1000])],
     [h.make_tensor_value_info("z", F, [1000, 1000])])
save("layernorm-128x768", [h.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-1)],
     [h.make_tensor_value_info("x", F, [128, 768])], [h.make_tensor_value_info("y", F, [128, 768])],
     [nh.from_array(rng.standard_normal(768).astype(np.float32), "s"),
      nh.from_array(rng.standard_normal(768).astype(np.float32), "b")])
for axis in range(3):
    shape = [32, 128, 768]
    out_shape = list(shape)
    out_shape[axis] = 1
    save(f"reducemean-axis{axis}-32x128x768", [h.make_node("ReduceMean", ["x"], ["y"], axes=[axis], keepdims=1)],
         [h.make_tensor_value_info("x", F, shape)], [h.make_tensor_value_info("y", F, out_shape)])
save("transpose0213-32x128x12x64", [h.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1, 3])],
     [h.make_tensor_value_info("x", F, [32, 128, 12, 64])], [h.make_tensor_value_info("y", F, [32, 12, 128, 64])])
save("gather-128-of-30522x768", [h.make_node("Gather", ["table", "ids"], ["y"], axis=0)],
     [h.make_tensor_value_info("ids", T.INT64, [128])], [h.make_tensor_value_info("y", F, [128, 768])],
     [nh.from_array(rng.standard_normal((30522, 768)).astype(np.float32), "table")])
# A transformer-style linear layer: MatMul by a constant [512, 512] weight, bias Add and Relu (the
# linear-pack-fuse pass makes it one node); batch 1 and 8 of 128 rows.
w = nh.from_array((rng.standard_normal((512, 512)) / np.sqrt(512)).astype(np.float32), "w")
bias = nh.from_array(rng.standard_normal(512).astype(np.float32), "bias")
for batch in (1, 8):
    save(f"linear-relu-{batch}x128x512x512",
         [h.make_node("MatMul", ["x", "w"], ["y"]), h.make_node("Add", ["y", "bias"], ["b"]),
          h.make_node("Relu", ["b"], ["z"])],
         [h.make_tensor_value_info("x", F, [batch, 128, 512])], [h.make_tensor_value_info("z", F, [batch, 128, 512])],
         [w, bias])
print("ok")
