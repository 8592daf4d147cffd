"""What the integrity checks cost the table: a checkpoint at a round's end, a self-check.

* checkpoint: `CheckpointSigner.checkpoint` after a round's worth of events (the events-only
  chain read from the journal since the last one, and an Ed25519 signature), as the runtime
  makes one in its loop at every round's end; beside a bare Ed25519 signature;
* anchors: `check_anchors` holding a journal to a checkpoint per round;
* self-check: hashing the three installed packages and the configuration (runs off the loop).

    .venv/bin/python bench/integrity.py [--rounds N] [--events-per-round E]

Target (ours): a checkpoint costs the loop well under a millisecond (one card's latency budget
is a few ms); a self-check well under a second.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from studio.config import load_config
from studio.journal import Journal
from studio.journal.anchors import CheckpointSigner, check_anchors
from studio.runtime.manifest import config_text, hash_files, package_roots


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = ordered[len(ordered) // 2] * 1e3
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3
    return f"p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  mean {statistics.fmean(samples) * 1e3:7.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--events-per-round", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        signer = CheckpointSigner.load_or_create(root)
        checkpoints, made = [], []
        body = {"kind": "tick", "pad": "x" * 300}
        with Journal(root / "t.journal") as journal:
            for _ in range(args.rounds):
                for _ in range(args.events_per_round):
                    journal.append_input(body)
                    seq = journal.last_event_seq + 1
                    journal.append_events([{"seq": seq, "game_number": None, "pad": "y" * 300}])
                start = time.perf_counter()
                checkpoints.append(
                    signer.checkpoint("T01", journal, datetime.now(UTC), "round_end")
                )
                made.append(time.perf_counter() - start)
            start = time.perf_counter()
            report = check_anchors(journal, checkpoints, "T01")
            held = time.perf_counter() - start
        assert report.problem is None
        key = Ed25519PrivateKey.generate()
        bare = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            key.sign(b"x" * 200)
            bare.append(time.perf_counter() - start)
    print(f"checkpoint per round ({args.events_per_round} events): {_ms(made)}")
    print(f"bare Ed25519 signature (baseline):     {_ms(bare)}")
    print(f"check_anchors, {len(checkpoints)} checkpoints:        {held * 1e3:7.1f} ms")
    hashes = []
    text = config_text(load_config(None))
    for _ in range(5):
        start = time.perf_counter()
        found = hash_files(package_roots(), text)
        hashes.append(time.perf_counter() - start)
    print(f"self-check, {len(found)} files hashed:          {_ms(hashes)}  (target < 1000 ms)")


if __name__ == "__main__":
    main()
