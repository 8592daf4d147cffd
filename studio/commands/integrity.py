"""`studio integrity manifest|check`: certify the installed software and configuration.

`manifest --out FILE [--config TOML] [--game G]` writes the SHA-256 of every installed file of
the `studio`, `drivers` and `calibration` packages and of the table's effective configuration
(JSON, `studio.runtime.manifest.Manifest`); a table given it (`[integrity] manifest`) checks
itself against it at start, on a shift manager's `check_integrity` and every `check_hours`.
`check --manifest FILE [--config TOML] [--game G]` does the same check here, once: it prints
`OK: N files match` (exit 0) or one line per difference (exit 1). Exit status 2 (through
`studio.cli`) for a manifest or configuration that cannot be read.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from studio.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `integrity` command and its `manifest` and `check` actions."""
    parser = subparsers.add_parser(
        "integrity", help="certify the installed software and configuration (SHA-256 manifest)"
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = actions.add_parser("manifest", help="write the manifest of what is installed now")
    make.add_argument("--out", type=Path, required=True, help="the manifest file to write")
    check = actions.add_parser("check", help="compare what is installed with a manifest")
    check.add_argument("--manifest", type=Path, required=True, help="the certified manifest")
    for sub in (make, check):
        sub.add_argument("--config", metavar="TOML", help="the table's config file")
        sub.add_argument("--game", help="override the config's table.game, as `studio run` does")
    make.set_defaults(run=run_manifest)
    check.set_defaults(run=run_check)


def run_manifest(args: argparse.Namespace) -> int:
    """Write the manifest; print where, how many files and the digest; return 0."""
    # Imported here, not above: `studio integrity --help` need not load the config (OpenCV).
    from studio.config import load_config
    from studio.runtime.manifest import build_manifest, digest_of

    config = load_config(args.config, game=args.game)
    manifest = build_manifest(config, datetime.now(UTC))
    try:
        args.out.write_text(manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        raise ConfigurationError(f"{args.out}: cannot write: {err.strerror}") from err
    print(
        f"{args.out}: {len(manifest.files)} files, digest {digest_of(manifest.files)[:16]}",
        flush=True,
    )
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Check the installation against `--manifest`; return 0 when it matches, else 1."""
    # Imported here, not above: `studio integrity --help` need not load the config (OpenCV).
    from studio.config import load_config
    from studio.runtime.integrity import IntegrityChecker

    config = load_config(args.config, game=args.game)
    checked = IntegrityChecker(args.manifest, config).check("command", datetime.now(UTC))
    for line in checked.differences:
        print(f"{args.manifest}: DIFFERS: {line}")
    if checked.differences:
        return 1
    print(f"{args.manifest}: OK: {len(checked.hashes)} files match")
    return 0
