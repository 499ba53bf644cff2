#!/usr/bin/env python3
"""Writes the small transformer encoder the attention and gelu graph passes are checked on (run with /usr/bin/python3).

    make_transformer_encoder.py [OUT.onnx] [--inputs DIR --batch N --sequence S]

OUT.onnx defaults to $ONEMODEL_CACHE/models/transformer-encoder.onnx (ONEMODEL_CACHE defaults to ~/.cache/onemodel).
With --inputs it also writes seeded input_ids.npy and attention_mask.npy of [N, S] into DIR (row r padded after
S - 8r tokens, at least one kept), the inputs tools/bench/run.mjs times the model on.

The graph follows what a PyTorch BERT-style export at opset 17 looks like: token embedding (Gather) plus a slice of
a position table, then two post-norm encoder layers of 4-head self-attention (d_model 128, head size 32) with the
additive mask (1 - attention_mask) * -10000 unsqueezed to [batch, 1, 1, sequence], a 512-wide feed-forward block
with GELU written out in its erf form, LayerNormalization after each residual. Linears are MatMul + Add with
constant 2-D weights; heads are split with Reshape + Transpose(0,2,1,3) (keys: Transpose(0,2,3,1)), merged with
Transpose(0,2,1,3) + Reshape. Inputs input_ids and attention_mask are int64 [batch, sequence] with both extents
dynamic; the output last_hidden_state is float32 [batch, sequence, 128]. Weights are seeded, so the file is the
same on every run. Vocabulary 512 and 128 positions keep it under 2 MB.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

D_MODEL, HEADS, FFN, VOCAB, POSITIONS, LAYERS = 128, 4, 512, 512, 128, 2
HEAD = D_MODEL // HEADS

rng = np.random.default_rng(20261130)
nodes, inits = [], []


def const(name, values, dtype=np.float32):
    inits.append(nh.from_array(np.asarray(values, dtype=dtype), name))
    return name


def weight(name, shape, std):
    return const(name, rng.normal(0.0, std, shape))


def node(op, inputs, output, **attrs):
    nodes.append(h.make_node(op, inputs, [output], name=output, **attrs))
    return output


def linear(x, name, fan_in, fan_out):
    y = node("MatMul", [x, weight(name + ".weight", (fan_in, fan_out), fan_in ** -0.5)], name + "/matmul")
    return node("Add", [y, weight(name + ".bias", (fan_out,), 0.02)], name + "/add")


def layer_norm(x, name):
    gamma = const(name + ".weight", 1.0 + rng.normal(0.0, 0.1, D_MODEL))
    beta = const(name + ".bias", rng.normal(0.0, 0.1, D_MODEL))
    return node("LayerNormalization", [x, gamma, beta], name + "/ln", axis=-1, epsilon=1e-12)


def split_heads(x, name, perm):
    y = node("Reshape", [x, "heads_shape"], name + "/reshape")
    return node("Transpose", [y], name + "/transpose", perm=perm)


def gelu(x, name):
    # The opset-17 export of torch.nn.GELU(): x * (1 + erf(x / sqrt 2)) * 0.5 with rank-0 constants.
    y = node("Div", [x, "sqrt2"], name + "/div")
    y = node("Erf", [y], name + "/erf")
    y = node("Add", [y, "one"], name + "/add")
    y = node("Mul", [x, y], name + "/mul")
    return node("Mul", [y, "half"], name + "/mul_half")


def encoder_layer(x, mask, i):
    p = f"layer{i}"
    q = split_heads(linear(x, p + ".query", D_MODEL, D_MODEL), p + "/q", [0, 2, 1, 3])
    k = split_heads(linear(x, p + ".key", D_MODEL, D_MODEL), p + "/k", [0, 2, 3, 1])
    v = split_heads(linear(x, p + ".value", D_MODEL, D_MODEL), p + "/v", [0, 2, 1, 3])
    scores = node("MatMul", [q, k], p + "/scores")
    scores = node("Div", [scores, "head_scale"], p + "/scaled")
    scores = node("Add", [scores, mask], p + "/masked")
    probs = node("Softmax", [scores], p + "/softmax", axis=-1)
    ctx = node("MatMul", [probs, v], p + "/context")
    ctx = node("Transpose", [ctx], p + "/merge", perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, "model_shape"], p + "/merged")
    x = layer_norm(node("Add", [linear(ctx, p + ".output", D_MODEL, D_MODEL), x], p + "/residual1"), p + ".ln1")
    y = linear(gelu(linear(x, p + ".ffn_in", D_MODEL, FFN), p + "/gelu"), p + ".ffn_out", FFN, D_MODEL)
    return layer_norm(node("Add", [y, x], p + "/residual2"), p + ".ln2")


def build():
    const("heads_shape", [0, 0, HEADS, HEAD], np.int64)
    const("model_shape", [0, 0, D_MODEL], np.int64)
    const("head_scale", np.sqrt(HEAD))
    const("sqrt2", np.sqrt(2.0))
    const("one", 1.0)
    const("half", 0.5)
    const("mask_scale", -10000.0)
    const("zero_i", [0], np.int64)
    const("unsqueeze_axes", [1, 2], np.int64)

    tokens = node("Gather", [weight("embeddings.word", (VOCAB, D_MODEL), 1.0), "input_ids"], "embed/tokens")
    seq = node("Shape", ["input_ids"], "embed/sequence", start=1, end=2)
    positions = node("Slice", [weight("embeddings.position", (POSITIONS, D_MODEL), 0.5), "zero_i", seq, "zero_i"],
                     "embed/positions")
    x = layer_norm(node("Add", [tokens, positions], "embed/sum"), "embeddings.ln")

    m = node("Cast", ["attention_mask"], "mask/float", to=T.FLOAT)
    m = node("Sub", ["one", m], "mask/inverted")
    m = node("Mul", [m, "mask_scale"], "mask/additive")
    mask = node("Unsqueeze", [m, "unsqueeze_axes"], "mask/broadcast")

    for i in range(LAYERS):
        x = encoder_layer(x, mask, i)
    nodes.append(h.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    inputs = [h.make_tensor_value_info(n, T.INT64, ["batch", "sequence"]) for n in ("input_ids", "attention_mask")]
    outputs = [h.make_tensor_value_info("last_hidden_state", T.FLOAT, ["batch", "sequence", D_MODEL])]
    graph = h.make_graph(nodes, "transformer-encoder", inputs, outputs, inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=8,
                         producer_name="onemodel-transformer-encoder")
    onnx.checker.check_model(model)
    return model


def write_inputs(directory, batch, sequence):
    inputs_rng = np.random.default_rng(batch * 1000 + sequence)
    ids = inputs_rng.integers(0, VOCAB, size=(batch, sequence), dtype=np.int64)
    mask = np.ones((batch, sequence), dtype=np.int64)
    for r in range(batch):
        mask[r, max(1, sequence - 8 * r):] = 0
    os.makedirs(directory, exist_ok=True)
    np.save(os.path.join(directory, "input_ids.npy"), ids)
    np.save(os.path.join(directory, "attention_mask.npy"), mask)


def main():
    cache = os.environ.get("ONEMODEL_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "onemodel"))
    parser = argparse.ArgumentParser(description="Writes the transformer encoder test model.")
    parser.add_argument("out", nargs="?", default=os.path.join(cache, "models", "transformer-encoder.onnx"))
    parser.add_argument("--inputs", help="directory for seeded input_ids.npy and attention_mask.npy")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--sequence", type=int, default=128)
    args = parser.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    onnx.save(build(), args.out)
    if args.inputs:
        write_inputs(args.inputs, args.batch, args.sequence)
    print(f"{args.out}: {os.path.getsize(args.out)} bytes")


if __name__ == "__main__":
    main()
