"""Write the learned index readers of the built-in synthetic designs into the package.

    python -m drivers.camera.synthetic.shipped_models [--check]

The simulated table (`studio run` on embedded defaults) learns its deck from the scans of a
built-in design (`drivers.camera.synthetic.felt.felt_profile`), and the tests learn the same
designs from their scans at the default resolution; training takes minutes, so the models of
those reference sets (`reference_sets`) ship in `calibration/models/`, found there by the same
key as the training cache (references, window, seed, training size and the training code's own
hash).
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

from calibration import corner_training
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
            # A fresh cache: the model is trained (or found shipped) and, if trained, lands
            # in `tmp`, from which it is copied into the package.
            learn_deck(refs, model_cache=Path(tmp))
            made = list(Path(tmp).glob("index-model-*.npz"))
            keep |= {target / p.name for p in made}
            if not made:
                keep |= _used()
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
    if not args.check:
        for old in set(target.glob("*.npz")) - keep - _used():
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


def _used() -> set[Path]:
    """Shipped files loaded in this process so far (found current by their key)."""
    return set(corner_training.SHIPPED_USED)


if __name__ == "__main__":
    raise SystemExit(main())
