"""The split of generated deck designs into a tuning set and a test set, fixed once by seed.

`TUNING_SEEDS` are the designs anything may be tuned on: thresholds, architectures, training
recipes, confidence cut-offs. `TEST_SEEDS` are held out: **no threshold, architecture choice or
training recipe may ever be chosen on the test set**; it is only measured, and its figure is the
one that counts. The two ranges never overlap (a test checks it); do not move seeds between them,
and do not add a seed to the tuning set after looking at a test figure.
"""

from __future__ import annotations

TUNING_SEEDS: tuple[int, ...] = tuple(range(1000, 1040))
"""Forty design seeds for tuning and training choices."""

TEST_SEEDS: tuple[int, ...] = tuple(range(9000, 9040))
"""Forty design seeds held out from every choice: measured only."""

TRAINING_SEEDS: tuple[int, ...] = tuple(range(2000, 2400))
"""Designs on the tuning side drawn only to train the shipped universal index reader
(`drivers.camera.index_reader_training`): many designs teach the network what an index is, in
any typeface. They are tuning material (never a test design); a test checks that the range is
disjoint from `TEST_SEEDS`. The bench measures neither split on them."""

SPLITS: dict[str, tuple[int, ...]] = {"tuning": TUNING_SEEDS, "test": TEST_SEEDS}
"""Each split's seeds by name, as `bench/camera.py --split` takes them."""
