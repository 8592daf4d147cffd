"""The software and configuration manifest: the SHA-256 of every installed file of the packages.

`studio integrity manifest` writes one (`build_manifest`), and a table given one
(`[integrity] manifest`) checks itself against it at start, on a shift manager's
`check_integrity` and every `check_hours` (`studio.runtime.integrity`): a file changed, missing
or added (a `.py` dropped into a package is imported like any other) is a difference, and any
difference pauses the table until a manager acts. What is hashed: every file under the
`studio`, `drivers` and `calibration` packages as imported (bytecode caches aside: Python
rebuilds them from the sources it checks), and the table's effective configuration (the
validated settings as JSON, whatever file or defaults they came from), keyed `config:effective`.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, ValidationError

from studio.config import RuntimeConfig
from studio.errors import ConfigurationError

PACKAGES = ("studio", "drivers", "calibration")
"""The packages whose installed files a manifest covers."""

CONFIG_KEY = "config:effective"
"""The key of the configuration's entry (it lives outside the packages)."""


class Manifest(BaseModel):
    """Every covered file's SHA-256 (hex), by package-relative path, as certified."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["studio-manifest/1"] = "studio-manifest/1"
    created: AwareDatetime
    files: dict[str, str]


def package_roots() -> dict[str, Path]:
    """Each covered package's directory, as Python imports it."""
    roots = {}
    for name in PACKAGES:
        module = importlib.import_module(name)
        roots[name] = Path(next(iter(module.__path__)))
    return roots


def config_text(config: RuntimeConfig) -> bytes:
    """The effective configuration as the manifest hashes it."""
    return config.model_dump_json().encode()


def hash_files(roots: Mapping[str, Path], config: bytes | None) -> dict[str, str]:
    """The SHA-256 of every file under `roots` and of `config`, by manifest key, sorted.

    Raises `ConfigurationError` when a file cannot be read.
    """
    found: dict[str, str] = {}
    try:
        for name, root in roots.items():
            for path in sorted(root.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    found[f"{name}/{path.relative_to(root).as_posix()}"] = _sha256(path)
        if config is not None:
            found[CONFIG_KEY] = hashlib.sha256(config).hexdigest()
    except OSError as err:
        raise ConfigurationError(f"cannot hash {err.filename}: {err.strerror}") from err
    return dict(sorted(found.items()))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def digest_of(hashes: Mapping[str, str]) -> str:
    """One SHA-256 over every key and hash in key order: the whole installation in one value."""
    text = "".join(f"{k}\t{v}\n" for k, v in sorted(hashes.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def build_manifest(config: RuntimeConfig | None, now: datetime) -> Manifest:
    """The manifest of the installed packages (and the effective `config`) now."""
    text = None if config is None else config_text(config)
    return Manifest(created=now, files=hash_files(package_roots(), text))


def read_manifest(path: Path) -> tuple[Manifest, str]:
    """The manifest at `path` and the SHA-256 of its bytes.

    Raises `ConfigurationError` in one line when it cannot be read or is not a manifest.
    """
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ConfigurationError(f"{path}: cannot read the manifest: {err.strerror}") from err
    try:
        manifest = Manifest.model_validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        raise ConfigurationError(f"{path}: not a studio manifest: {first['msg']}") from err
    return manifest, hashlib.sha256(data).hexdigest()


def differences(certified: Mapping[str, str], found: Mapping[str, str]) -> list[str]:
    """One line per file changed, missing or added, in path order (empty: they match)."""
    lines = []
    for key in sorted(set(certified) | set(found)):
        if key not in found:
            lines.append(f"{key} is missing")
        elif key not in certified:
            lines.append(f"{key} is not in the manifest")
        elif certified[key] != found[key]:
            lines.append(
                f"{key} changed (sha256 {found[key][:16]}, certified {certified[key][:16]})"
            )
    return lines
