"""The ONNX graph of the dense index-corner detector: a fully convolutional network over a frame.

`onnx_graph.conv_net_onnx` writes the camera's patch networks (convolutions with pooling, a dense
layer, heads); this writes the other shape, 3x3 convolutions with strides and dilations and a
1x1 head, no pooling or dense layer, whose input is a whole frame of any size
(`dense_corner_training`, run by `dense_corners`). It is a module of its own because the deck
reader's training cache keys on `onnx_graph`'s source (`calibration.corner_training`): a writer
the deck's network does not use must not make every calibrated deck train again. `onnx` is
imported only inside the function: a table that only reads never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from drivers.camera.onnx_graph import IR_VERSION, OPSET


@dataclass(frozen=True, slots=True)
class ConvLayer:
    """One 3x3 (or 1x1) convolution of a fully convolutional network: weights `{name}w`/`{name}b`.

    `stride` and `dilation` are the same along both axes; padding keeps a stride-1 layer's size
    (`dilation` pixels each side of a 3x3 kernel, none of a 1x1); `relu` follows it or not.
    """

    name: str
    stride: int = 1
    dilation: int = 1
    relu: bool = True


def fully_conv_onnx(
    params: Mapping[str, npt.NDArray[np.float32]],
    layers: Sequence[ConvLayer],
    *,
    graph: str,
    input_name: str,
    output: str,
    doc: str = "",
) -> bytes:
    """A fully convolutional network of `layers` as a serialised, checked ONNX model.

    The input is (n, 1, h, w) with h and w free (any frame size runs); the output is the last
    layer's maps, (n, channels, h', w'). Raises `KeyError` for a missing weight and onnx's
    `ValidationError` for a graph that does not check.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = []
    x = input_name
    for layer in layers:
        w = params[f"{layer.name}w"]
        pad = layer.dilation * (w.shape[2] // 2)
        out = f"{layer.name}_conv"
        nodes.append(
            helper.make_node(
                "Conv",
                [x, f"{layer.name}w", f"{layer.name}b"],
                [out],
                pads=[pad] * 4,
                strides=[layer.stride] * 2,
                dilations=[layer.dilation] * 2,
            )
        )
        if layer.relu:
            nodes.append(helper.make_node("Relu", [out], [f"{layer.name}_relu"]))
            out = f"{layer.name}_relu"
        x = out
    nodes.append(helper.make_node("Identity", [x], [output]))
    names = {f"{layer.name}{p}" for layer in layers for p in "wb"}
    model = helper.make_model(
        helper.make_graph(
            nodes,
            graph,
            [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, ["n", 1, "h", "w"])],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["n", None, None, None])],
            [numpy_helper.from_array(params[n], name=n) for n in sorted(names)],
        ),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="studio-table",
    )
    model.ir_version = IR_VERSION
    model.doc_string = doc
    onnx.checker.check_model(model)
    data: bytes = model.SerializeToString()
    return data
