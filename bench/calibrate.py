"""How long `studio calibrate deck` takes on a deck it has never seen, with the real setting.

Writes the 52 flat renders of a generated design (`drivers/camera/synthetic/deckgen.py`, a
tuning design by default) and runs `studio calibrate deck --images DIR --out PROFILE` in a fresh
process with an empty cache directory (so the reader is trained, not loaded) and the full
training setting (`STUDIO_QUICK_TRAINING` removed). Prints the wall-clock time beside the target
(<= 5 min on 2 cores), the CPU time of the process, and the load average it ran under: on a
machine shared with other jobs the wall-clock time measures the load as well as the code.

    python bench/calibrate.py [--design SEED] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.reference import write_reference_deck
from drivers.camera.synthetic.splits import SPLITS

TARGET_S = 300.0
"""Calibration of one deck with the real setting, on 2 cores."""


def calibrate_once(design_seed: int) -> dict[str, float]:
    """Calibrate the design's 52 renders in a fresh `studio` process; its wall and CPU seconds."""
    with tempfile.TemporaryDirectory(prefix="bench-calibrate-") as tmp:
        root = Path(tmp)
        write_reference_deck(root / "cards", deckgen.design(design_seed), "scan")
        env = {k: v for k, v in os.environ.items() if k != "STUDIO_QUICK_TRAINING"}
        env["XDG_CACHE_HOME"] = str(root / "cache")
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        cmd = [sys.executable, "-m", "studio.cli", "calibrate", "deck"]
        cmd += ["--images", str(root / "cards"), "--out", str(root / "profile")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode not in (0, 2):
            raise SystemExit(f"studio calibrate deck failed ({done.returncode}): {done.stderr}")
        return {
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1),
            "load_1min": round(load, 2),
            "calibrated": float(done.returncode == 0),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--design", type=int, default=SPLITS["tuning"][0], help="design seed")
    parser.add_argument("--runs", type=int, default=1, help="calibrations to time")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    runs = [calibrate_once(args.design) for _ in range(args.runs)]
    for run in runs:
        print(
            f"calibrate deck gen-{args.design}: {run['wall_s']:.1f} s wall "
            f"(target <= {TARGET_S:.0f} s on 2 cores), {run['cpu_s']:.1f} s CPU, "
            f"load {run['load_1min']:.2f} on {os.cpu_count()} cores"
            + ("" if run["calibrated"] else "  (the deck was refused: see the command's error)")
        )
    if args.json:
        print(json.dumps({"design": args.design, "target_s": TARGET_S, "runs": runs}))


if __name__ == "__main__":
    main()
