"""The ONNX graph of the camera's small convolutional networks, written from trained weights.

Both learned parts of the camera have one shape: a few 3x3 convolutions (padding 1), each with
a ReLU and a 2x2 max pool, one dense ReLU layer, then one or more linear heads. The deck's index
reader (`calibration.corner_net`: rank and suit heads, softmax in the graph) and the
index-corner detector (`drivers.camera.index_corner_training`: one logit) are both written here,
so the graph onnxruntime runs at table time is built by one function. The weights are named
`c{k}w`/`c{k}b` (convolution k, OIHW), `dw`/`db` (dense, (in, out)) and `{head}w`/`{head}b`.
`onnx` is imported only inside the function: a table that only reads never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

OPSET = 17
IR_VERSION = 8
"""The ONNX IR version written: an old one, so any onnxruntime the project allows reads it."""


@dataclass(frozen=True, slots=True)
class Head:
    """One output of the network: its graph name, its weights' prefix, softmax or raw logits."""

    output: str
    weights: str
    softmax: bool


def conv_net_onnx(
    params: Mapping[str, npt.NDArray[np.float32]],
    *,
    graph: str,
    input_name: str,
    input_shape: tuple[int, int, int],
    heads: Sequence[Head],
    doc: str = "",
) -> bytes:
    """The network of `params` as a serialised, checked ONNX model.

    `input_shape` is (channels, height, width) of one input; the batch dimension is free ("n").
    The number of convolutions is read from `params` (`c0w`, `c1w`, ...). Each head's output is
    (n, classes): probabilities when `softmax`, else logits. Raises `KeyError` when a weight
    the graph needs is missing, and onnx's `ValidationError` for a graph that does not check.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = []
    x = input_name
    k = 0
    while f"c{k}w" in params:
        nodes += [
            helper.make_node("Conv", [x, f"c{k}w", f"c{k}b"], [f"conv{k}"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"conv{k}"], [f"relu{k}"]),
            helper.make_node(
                "MaxPool", [f"relu{k}"], [f"pool{k}"], kernel_shape=[2, 2], strides=[2, 2]
            ),
        ]
        x = f"pool{k}"
        k += 1
    nodes += [
        helper.make_node("Flatten", [x], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "dw", "db"], ["dense"]),
        helper.make_node("Relu", ["dense"], ["hidden"]),
    ]
    outputs = []
    for head in heads:
        w, b = f"{head.weights}w", f"{head.weights}b"
        if head.softmax:
            logits = f"{head.output}_logits"
            nodes += [
                helper.make_node("Gemm", ["hidden", w, b], [logits]),
                helper.make_node("Softmax", [logits], [head.output], axis=1),
            ]
        else:
            nodes.append(helper.make_node("Gemm", ["hidden", w, b], [head.output]))
        outputs.append(
            helper.make_tensor_value_info(head.output, TensorProto.FLOAT, ["n", params[b].size])
        )
    channels, height, width = input_shape
    model = helper.make_model(
        helper.make_graph(
            nodes,
            graph,
            [
                helper.make_tensor_value_info(
                    input_name, TensorProto.FLOAT, ["n", channels, height, width]
                )
            ],
            outputs,
            [numpy_helper.from_array(v, name=n) for n, v in sorted(params.items())],
        ),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="studio-table",
    )
    model.ir_version = IR_VERSION
    model.doc_string = doc
    onnx.checker.check_model(model)
    out: bytes = model.SerializeToString()
    return out
