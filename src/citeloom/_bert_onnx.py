"""Build an ONNX graph of a BERT encoder straight from its safetensors weights.

The graph is assembled with numpy and ``onnx.helper`` so that no torch or transformers
is ever needed at install or run time. Its interface (``input_ids``, ``attention_mask``,
``token_type_ids`` -> ``last_hidden_state``) is the one fastembed expects from a custom
model with mean pooling.
"""

from __future__ import annotations

import json
import math
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # the first opset with LayerNormalization

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read every tensor of a ``.safetensors`` file into float32/int numpy arrays."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
        data = f.read()
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = data[start:end]
        dtype = info["dtype"]
        if dtype == "BF16":
            # bfloat16 is the upper half of a float32, numpy has no native type for it
            arr = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        elif dtype in _DTYPES:
            arr = np.frombuffer(raw, np.dtype(_DTYPES[dtype]).newbyteorder("<"))
        else:
            raise ValueError(f"unsupported safetensors dtype {dtype} for {name}")
        arr = arr.reshape(info["shape"])
        if arr.dtype.kind == "f":
            arr = arr.astype(np.float32)
        tensors[name] = arr
    return tensors


class _Graph:
    """Collects nodes and initializers, handing out unique tensor names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, *inputs: str, out: str | None = None, **attrs: Any) -> str:
        self._n += 1
        out = out or f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out


def _linear(g: _Graph, x: str, w: dict[str, np.ndarray], prefix: str) -> str:
    # torch stores Linear weights as [out, in]; MatMul wants [in, out]
    weight = g.const(f"{prefix}.weight_t", np.ascontiguousarray(w[f"{prefix}.weight"].T))
    bias = g.const(f"{prefix}.bias", w[f"{prefix}.bias"])
    return g.op("Add", g.op("MatMul", x, weight), bias)


def _layer_norm(g: _Graph, x: str, w: dict[str, np.ndarray], prefix: str, eps: float) -> str:
    scale = g.const(f"{prefix}.weight", w[f"{prefix}.weight"])
    bias = g.const(f"{prefix}.bias", w[f"{prefix}.bias"])
    return g.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def _build(w: dict[str, np.ndarray], cfg: dict[str, Any]) -> onnx.ModelProto:
    hidden = int(cfg["hidden_size"])
    heads = int(cfg["num_attention_heads"])
    head_dim = hidden // heads
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    g = _Graph()

    # Embeddings: word + position + token type, then LayerNorm.
    words = g.op(
        "Gather",
        g.const("word_embeddings", w["embeddings.word_embeddings.weight"]),
        "input_ids",
        axis=0,
    )
    seq_len = g.op(
        "Gather",
        g.op("Shape", "input_ids"),
        g.const("one_i64", np.array(1, dtype=np.int64)),
        axis=0,
    )
    positions = g.op("Range", g.const("zero_i64", np.array(0, dtype=np.int64)), seq_len, "one_i64")
    pos = g.op(
        "Gather",
        g.const("position_embeddings", w["embeddings.position_embeddings.weight"]),
        positions,
        axis=0,
    )
    types = g.op(
        "Gather",
        g.const("token_type_embeddings", w["embeddings.token_type_embeddings.weight"]),
        "token_type_ids",
        axis=0,
    )
    x = g.op("Add", g.op("Add", words, pos), types)
    x = _layer_norm(g, x, w, "embeddings.LayerNorm", eps)

    # Additive mask [batch, 1, 1, seq]: 0 where attended, the float32 minimum on padding,
    # as transformers does, so padded keys get exactly zero attention weight.
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask = g.op("Unsqueeze", mask, g.const("mask_axes", np.array([1, 2], dtype=np.int64)))
    one_f = g.const("one_f32", np.array(1.0, dtype=np.float32))
    neg = g.const("mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32))
    mask = g.op("Mul", g.op("Sub", one_f, mask), neg)

    split_shape = g.const("split_heads_shape", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_shape = g.const("merge_heads_shape", np.array([0, 0, hidden], dtype=np.int64))
    # Divide by sqrt(head_dim) as BERT does, rather than multiply by a rounded reciprocal.
    scale = g.const("attn_scale", np.array(math.sqrt(head_dim), dtype=np.float32))
    half = g.const("half_f32", np.array(0.5, dtype=np.float32))
    sqrt2 = g.const("sqrt2_f32", np.array(math.sqrt(2.0), dtype=np.float32))

    for i in range(int(cfg["num_hidden_layers"])):
        p = f"encoder.layer.{i}"

        def heads_of(t: str) -> str:
            return g.op("Reshape", t, split_shape)

        q = g.op(
            "Transpose", heads_of(_linear(g, x, w, f"{p}.attention.self.query")), perm=[0, 2, 1, 3]
        )
        k_t = g.op(
            "Transpose", heads_of(_linear(g, x, w, f"{p}.attention.self.key")), perm=[0, 2, 3, 1]
        )
        v = g.op(
            "Transpose", heads_of(_linear(g, x, w, f"{p}.attention.self.value")), perm=[0, 2, 1, 3]
        )
        scores = g.op("Add", g.op("Div", g.op("MatMul", q, k_t), scale), mask)
        probs = g.op("Softmax", scores, axis=-1)
        ctx = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", ctx, merge_shape)
        attn = _linear(g, ctx, w, f"{p}.attention.output.dense")
        x = _layer_norm(g, g.op("Add", attn, x), w, f"{p}.attention.output.LayerNorm", eps)

        # Exact (erf) GELU, which is what BERT's "gelu" means; opset 17 has no Gelu op.
        h = _linear(g, x, w, f"{p}.intermediate.dense")
        erf = g.op("Erf", g.op("Div", h, sqrt2))
        h = g.op("Mul", g.op("Mul", h, half), g.op("Add", erf, one_f))
        out = _linear(g, h, w, f"{p}.output.dense")
        x = _layer_norm(g, g.op("Add", out, x), w, f"{p}.output.LayerNorm", eps)

    g.op("Identity", x, out="last_hidden_state")

    ids = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden]
    )
    graph = helper.make_graph(g.nodes, "bert_encoder", ids, [output], initializer=g.inits)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="citeloom"
    )
    # Pin the IR version so older onnxruntime builds still accept the file.
    model.ir_version = 8
    return model


def export_bert_onnx(model_dir: Path, out_path: Path) -> Path:
    """Export the BERT in ``model_dir`` (config.json + model.safetensors) to ``out_path``.

    The file is written to a temporary name next to ``out_path`` and renamed into
    place, so a crash never leaves a truncated model where a loader would find it.
    """
    model_dir, out_path = Path(model_dir), Path(out_path)
    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"only erf GELU is supported, config has {cfg['hidden_act']!r}")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only absolute position embeddings are supported")

    weights = read_safetensors(model_dir / "model.safetensors")
    # BertForX checkpoints prefix the encoder with "bert."; plain BertModel ones don't.
    weights = {k.removeprefix("bert."): v for k, v in weights.items()}
    model = _build(weights, cfg)
    onnx.checker.check_model(model)

    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out_path.name + ".", suffix=".tmp", dir=out_path.parent)
    os.close(fd)
    try:
        onnx.save_model(model, tmp)
        os.replace(tmp, out_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out_path
