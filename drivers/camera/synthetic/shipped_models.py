"""Write the learned index readers of the built-in synthetic designs into the package.

    python -m drivers.camera.synthetic.shipped_models [--check]

The simulated table (`studio run` on embedded defaults) learns its deck from the scans of a
built-in design (`drivers.camera.synthetic.felt.felt_profile`), and the tests learn the same
designs from their scans at the default resolution; training takes minutes, so the readers of
those reference sets (`reference_sets`) ship in `calibration/models/`: each the pair of seeds
merged into one model (`calibration.reader_pair`), found there by the same key as the cache
(its members' keys: references, window, seed, training size and the training code's own hash;
and the pairing code's own).
The script trains each one afresh with the full setting and writes it; training is seeded, so a
rerun on the same code writes the same key. `--check` only reports whether each design's
shipped model is present for the code as it is, and exits 1 when one is not.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from calibration import corner_training, reader_pair
from calibration.deck import learn_deck
from drivers.camera.index_model import Image
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.felt import felt_references
from drivers.camera.synthetic.reference import render_reference
from studio.cards import DECK


def main(argv: list[str] | None = None) -> int:
    """Train and write (or with `--check`, only check) every reference set's shipped model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report only; exit 1 if stale")
    args = parser.parse_args(argv)
    if os.environ.get("STUDIO_QUICK_TRAINING") == "1":
        print("unset STUDIO_QUICK_TRAINING: shipped models use the full setting", file=sys.stderr)
        return 2
    target = corner_training.SHIPPED_DIR
    stale = 0
    keep: set[Path] = set()
    for name, refs in reference_sets().items():
        with tempfile.TemporaryDirectory(prefix="shipped-model-") as tmp:
            # A fresh cache: the deck's reader (the pair of seeds, merged) is found shipped or,
            # if made, lands in `tmp`, from which it alone is copied into the package (its
            # members are trained into `tmp` too, and stay there: the table never needs them).
            reader_pair.PAIR_KEYS.clear()
            learn_deck(refs, model_cache=Path(tmp))
            made = [corner_training.cached_model_path(Path(tmp), k) for k in reader_pair.PAIR_KEYS]
            made = [p for p in made if p.exists()]
            keep.update(corner_training.cached_model_path(target, k) for k in reader_pair.PAIR_KEYS)
            if not made:
                print(f"{name}: shipped model is current")
                continue
            stale += 1
            if args.check:
                print(f"{name}: no shipped model for this code")
                continue
            target.mkdir(exist_ok=True)
            for path in made:
                (target / path.name).write_bytes(path.read_bytes())
                print(f"{name}: wrote {target / path.name}")
        corner_training._CACHE.clear()
        reader_pair._CACHE.clear()
    if not args.check:
        for old in set(target.glob("*.npz")) - keep:
            old.unlink()  # a model no reference set of this code can ask for
    return 1 if args.check and stale else 0


def reference_sets() -> dict[str, dict[str, Image]]:
    """The reference sets whose models ship: each built-in design's felt scans and scans."""
    out: dict[str, dict[str, Image]] = {}
    for name, design in DESIGNS.items():
        out[f"{name}/felt"] = felt_references(design)
        out[f"{name}/scan"] = {
            c.code: render_reference(c, design, "scan", i) for i, c in enumerate(DECK)
        }
    return out


if __name__ == "__main__":
    raise SystemExit(main())
