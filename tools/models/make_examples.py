#!/usr/bin/python3
"""Writes the sample models the getting-started guide and the cookbook programs use.

classifier.onnx, scorer.onnx and wide.onnx follow the guide's script step for step (same generator seed, same order
of draws), so their weights and bytes match the documented outputs; unsupported.onnx and wave.onnx are the two models
of the "missing operators" cookbook page. Run with Debian's python3-onnx:

    /usr/bin/python3 tools/models/make_examples.py [OUT_DIR]     (default: examples/models)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

WIDE_BYTES = 655516  # the size the guide's script produces; a different size means a different model


def save(model, out_dir, name, check=True):
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out_dir, name))


def guide_models(out_dir):
    rng = np.random.default_rng(7)

    def w(name, *shape):
        return nh.from_array(rng.standard_normal(shape).astype(np.float32) * 0.5, name)

    # classifier: 4 features -> 8 hidden (Relu) -> 3 classes (Softmax)
    g = h.make_graph(
        [h.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1),
         h.make_node("Relu", ["h"], ["hr"]),
         h.make_node("Gemm", ["hr", "W2", "b2"], ["logits"], transB=1),
         h.make_node("Softmax", ["logits"], ["probs"], axis=1)],
        "classifier",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4])],
        [h.make_tensor_value_info("probs", T.FLOAT, ["batch", 3])],
        [w("W1", 8, 4), w("b1", 8), w("W2", 3, 8), w("b2", 3)])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8), out_dir, "classifier.onnx")

    # scorer: two named inputs, two outputs
    g = h.make_graph(
        [h.make_node("MatMul", ["features", "W"], ["proj"]),
         h.make_node("Add", ["proj", "bias"], ["score"]),
         h.make_node("ReduceMax", ["score"], ["best"], axes=[1], keepdims=0)],
        "scorer",
        [h.make_tensor_value_info("features", T.FLOAT, ["batch", 3]),
         h.make_tensor_value_info("bias", T.FLOAT, [1, 2])],
        [h.make_tensor_value_info("score", T.FLOAT, ["batch", 2]),
         h.make_tensor_value_info("best", T.FLOAT, ["batch"])],
        [nh.from_array(np.array([[1, 0], [0, 1], [1, 1]], np.float32), "W")])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)], ir_version=8), out_dir, "scorer.onnx")

    # wide: 256 -> 512 (Relu) -> 64, large enough for half-precision weight storage to matter
    g = h.make_graph(
        [h.make_node("MatMul", ["x", "W1"], ["h"]),
         h.make_node("Relu", ["h"], ["hr"]),
         h.make_node("MatMul", ["hr", "W2"], ["y"])],
        "wide",
        [h.make_tensor_value_info("x", T.FLOAT, [1, 256])],
        [h.make_tensor_value_info("y", T.FLOAT, [1, 64])],
        [nh.from_array((rng.standard_normal((256, 512)) * 0.05).astype(np.float32), "W1"),
         nh.from_array((rng.standard_normal((512, 64)) * 0.05).astype(np.float32), "W2")])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8), out_dir, "wide.onnx")


def missing_operator_models(out_dir):
    # unsupported: two operators without a kernel. The cookbook saves it unchecked, and so do we.
    g = h.make_graph(
        [h.make_node("DeformConv", ["x", "w", "offset"], ["y"]),
         h.make_node("ImageDecoder", ["encoded"], ["image"], pixel_format="RGB")],
        "unsupported",
        [h.make_tensor_value_info("x", T.FLOAT, [1, 1, 3, 3]), h.make_tensor_value_info("w", T.FLOAT, [1, 1, 2, 2]),
         h.make_tensor_value_info("offset", T.FLOAT, [1, 8, 2, 2]),
         h.make_tensor_value_info("encoded", T.UINT8, [16])],
        [h.make_tensor_value_info("y", T.FLOAT, None), h.make_tensor_value_info("image", T.UINT8, None)])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 22)], ir_version=10), out_dir, "unsupported.onnx",
         check=False)

    # wave: a single Cos
    g = h.make_graph([h.make_node("Cos", ["t"], ["y"])], "wave",
                     [h.make_tensor_value_info("t", T.FLOAT, [4])], [h.make_tensor_value_info("y", T.FLOAT, [4])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8), out_dir, "wave.onnx", check=False)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "examples", "models")
    os.makedirs(out_dir, exist_ok=True)
    guide_models(out_dir)
    missing_operator_models(out_dir)
    size = os.path.getsize(os.path.join(out_dir, "wide.onnx"))
    if size != WIDE_BYTES:
        sys.exit(f"wide.onnx is {size} bytes, expected {WIDE_BYTES}: the weights differ from the guide's")
    print(f"wrote the sample models to {out_dir}")


if __name__ == "__main__":
    main()
