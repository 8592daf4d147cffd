"""A deck's reader: the mean of readers trained from several seeds, as one ONNX model.

One training of the deck's reader is one draw: retrained from another seed it reads the same frames
up to a point of recall apart and makes sure wrong reads of its own, and the mean of two seeds'
class probabilities reads as well as either and makes none that only one of them makes
(docs/camera-history.md, "Reader seeds measured" and "The reader as the mean of two seeds"). So
every deck's reader is trained once per seed of `SEEDS` (`corner_training.train_index_model`, each
cached and shipped under its own key as before) and the members are merged into ONE model
(`mean_model`): the same input `window`, the same outputs `rank` and `suit`, each the mean of the
members' probabilities. The profile, `IndexModel` and the classifier see one reader and onnxruntime
runs one call per batch. The merged reader is cached (in the process, on disk and shipped in the
package) under a key of its own, so a table whose deck was learned before loads one file and never
imports `onnx`.

This pairing lives apart from `corner_training` on purpose: that module's source keys every
trained model, so editing it would retrain every deck and stale every shipped model.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from calibration import corner_training
from drivers.camera.index_model import Image, IndexModel

SEEDS: tuple[int, ...] = (0, 1)
"""The seeds every deck's reader is drawn from: their mean read as seed 0's reader or better on
five of the six tuning caches and made none of one draw's wrong reads, as three seeds' mean did
on the caches where it mattered (docs/camera-history.md, "Reader seeds measured"), for two thirds of
the training and the network."""

_CACHE: dict[str, tuple[IndexModel, int]] = {}
"""The merged reader by its key (`pair_key`): `corner_training` keeps one member at a time, so
without this every `learn_deck` of the same deck in a process would load its members again."""
PAIR_KEYS: set[str] = set()
"""The keys of the merged readers this process asked for (for the script that ships them)."""


def train_reader(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    *,
    seeds: Sequence[int] = SEEDS,
    cache_dir: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[IndexModel, int]:
    """The deck's reader (the mean of one reader per seed of `seeds`) and its training windows.

    One seed gives that seed's reader itself (`train_index_model(..., seed=s)`). For several,
    the merged reader is looked up as a member is: in the process, then shipped in the package
    (`corner_training.SHIPPED_DIR`, the full setting's), then in `cache_dir`, under `pair_key`;
    found there, no member is loaded and `onnx` is never imported (half a second of CPU).
    Otherwise each member is `train_index_model(flats, window, ranks, suits, seed=s,
    cache_dir=...)`, so a member trained, cached or shipped before is reused, and the merged
    reader is stored in `cache_dir`. Under the quick setting (`STUDIO_QUICK_TRAINING=1`, the
    tests), a deck with no shipped pair trains the first seed alone: two quick trainings per
    test deck grew the camera and calibration tests by half their CPU, and a test's reader need
    only read its own deck's crisp corners (the pairing has tests of its own).
    `progress(stage, done, total)` hears each member's rendering and training in turn, counted
    over all members (the second member's "render" continues where the first's ended). Returns
    the reader and the windows all members were trained on together.
    """
    if not seeds:
        raise ValueError("a reader needs at least one seed")
    size = corner_training.training_size()
    if len(seeds) > 1:
        shipped = _shipped(flats, window, ranks, suits, seeds)
        if shipped is not None:
            return shipped
        if size == corner_training.QUICK:
            seeds = seeds[:1]
    if len(seeds) == 1:
        return corner_training.train_index_model(
            flats, window, ranks, suits, seed=seeds[0], cache_dir=cache_dir, progress=progress
        )
    key = pair_key(flats, window, ranks, suits, seeds, size)
    PAIR_KEYS.add(key)
    found = _held(key, cache_dir, ranks, suits)
    if found is None:
        found = _merged(flats, window, ranks, suits, seeds, cache_dir, progress)
        if cache_dir is not None:
            corner_training._store(cache_dir, key, *found)
        _keep(key, found)
    return found


def _held(
    key: str, directory: Path | None, ranks: list[str], suits: list[str]
) -> tuple[IndexModel, int] | None:
    """The merged reader of `key` held in this process, else loaded from `directory`, or None."""
    if key in _CACHE:
        return _CACHE[key]
    found = (
        None if directory is None else corner_training._load_cached(directory, key, ranks, suits)
    )
    if found is not None:
        _keep(key, found)
    return found


def _keep(key: str, found: tuple[IndexModel, int]) -> None:
    """Hold `found` as the process's merged reader: one deck at a time, as corner_training."""
    _CACHE.clear()
    _CACHE[key] = found


def _shipped(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    seeds: Sequence[int],
) -> tuple[IndexModel, int] | None:
    """The pair of `seeds` shipped in the package (always the full setting's), or None."""
    key = pair_key(flats, window, ranks, suits, seeds, corner_training.FULL)
    PAIR_KEYS.add(key)
    return _held(key, corner_training.SHIPPED_DIR, ranks, suits)


def pair_key(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    seeds: Sequence[int],
    size: corner_training.TrainingSize,
) -> str:
    """The cache key of the merged reader: its members' keys and the source of `mean_model`.

    The members' keys already hold the training code's source; the merge adds only its own.
    """
    digest = hashlib.sha256(_MERGE_SOURCE.encode())
    for seed in seeds:
        digest.update(corner_training.model_key(flats, window, ranks, suits, seed, size).encode())
    return digest.hexdigest()


def _merged(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    seeds: Sequence[int],
    cache_dir: Path | None,
    progress: Callable[[str, int, int], None] | None,
) -> tuple[IndexModel, int]:
    """Every member of `seeds` trained (or found) and merged; the windows they trained on."""
    members: list[IndexModel] = []
    samples = 0
    for n, seed in enumerate(seeds):
        model, count = corner_training.train_index_model(
            flats,
            window,
            ranks,
            suits,
            seed=seed,
            cache_dir=cache_dir,
            progress=_member_progress(progress, n, len(seeds)),
        )
        members.append(model)
        samples += count
    return mean_model(members), samples


def _member_progress(
    progress: Callable[[str, int, int], None] | None, member: int, members: int
) -> Callable[[str, int, int], None] | None:
    """`progress` told of member `member`'s stages as a share of all `members`' work."""
    if progress is None:
        return None
    report = progress

    def told(stage: str, done: int, total: int) -> None:
        report(stage, member * total + done, members * total)

    return told


def mean_model(members: Sequence[IndexModel]) -> IndexModel:
    """One model whose `rank` and `suit` are the mean of `members`' (same input and classes).

    Each member's graph is copied under its own name prefix, all reading the one input
    `window`; an ONNX `Mean` node per output averages the members' probabilities. Raises
    `ValueError` when the members name different classes.
    """
    import onnx
    from onnx import compose, helper

    first = members[0]
    if any(m.ranks != first.ranks or m.suits != first.suits for m in members):
        raise ValueError("the members of a reader must name the same classes")
    graphs = [
        compose.add_prefix_graph(
            onnx.load_from_string(m.onnx).graph, f"seed{n}/", rename_inputs=False
        )
        for n, m in enumerate(members)
    ]
    head = onnx.load_from_string(first.onnx)
    outputs = [o.name for o in head.graph.output]
    nodes = [node for g in graphs for node in g.node]
    nodes += [
        helper.make_node("Mean", [f"seed{n}/{name}" for n in range(len(graphs))], [name])
        for name in outputs
    ]
    graph = helper.make_graph(
        nodes,
        f"mean_of_{len(members)}_{head.graph.name}",
        list(head.graph.input),
        list(head.graph.output),
        [init for g in graphs for init in g.initializer],
    )
    model = helper.make_model(
        graph,
        opset_imports=list(head.opset_import),
        producer_name=head.producer_name,
        ir_version=head.ir_version,
    )
    onnx.checker.check_model(model)
    return IndexModel(first.ranks, first.suits, model.SerializeToString())


_MERGE_SOURCE = inspect.getsource(mean_model)
"""What `pair_key` hashes of the merge (read once: the key must not follow a patched name)."""
