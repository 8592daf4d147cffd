"""A table's configuration: one TOML file validated into `RuntimeConfig`, with embedded defaults.

`load_config(path)` reads a TOML file and lays it over `DEFAULT_TOML` (section by section, key
by key), so a file names only what differs from the defaults. Every section refuses unknown keys,
because a misspelt key that is silently ignored would run the table on a default nobody chose.
`load_config(None)` is the embedded defaults alone: a Caribbean Stud table with a simulated shoe
on a pseudo-terminal read through the real serial driver, a journal in the user's data
directory, ZeroMQ on loopback, a simulated dealer dealing continuously and the synthetic camera
confirming every card it lays on the felt.

Backends are chosen by a string (`shoe.backend = "simulated" | "serial"`, `camera.backend =
"none" | "simulated" | "synthetic" | "capture"`), never by flags spread through the code. Paths
may use `{data}` (the data directory), `{table}` (the table id) and `{game}`. Errors are
`ConfigurationError` with one line naming the key.
"""

from __future__ import annotations

import json
import os
import string
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetPydanticSchema,
    ValidationError,
    model_validator,
)
from pydantic_core import core_schema

from drivers.camera.backends import CAMERA_BACKENDS
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.tuning import INDEX_READERS
from drivers.shoe.host import PROTOCOLS
from drivers.shoe.identity import UsbPin
from studio.bus import defaults as bus_defaults
from studio.errors import ConfigurationError, did_you_mean
from studio.messages import SCHEMA_VERSION, TableSettings

# Re-exported: callers that already load the config find the directories here too.
from studio.paths import cache_dir as cache_dir
from studio.paths import data_dir as data_dir


def one_of(names: Iterable[str]) -> GetPydanticSchema:
    """Validate a string as one of a registry's `names` (a Literal's checks and JSON Schema).

    The registry is the one list of the names: a backend added there is accepted here, with no
    second list to keep in step.
    """
    values = list(names)
    return GetPydanticSchema(lambda _source, _handler: core_schema.literal_schema(values))


ShoeProtocolName = Annotated[str, one_of(PROTOCOLS)]
"""A shoe protocol the drivers know (`drivers.shoe.PROTOCOLS`)."""

CardDesignName = Annotated[str, one_of(DESIGNS)]
"""A synthetic camera's card design (`drivers.camera.synthetic.designs.DESIGNS`)."""

CameraBackendName = Annotated[str, one_of(CAMERA_BACKENDS)]
"""A camera backend (`drivers.camera.backends.CAMERA_BACKENDS`)."""

IndexReaderName = Annotated[str, one_of(INDEX_READERS)]
"""What decides a card corner's code (`drivers.camera.tuning.INDEX_READERS`)."""

DEFAULT_TOML = """\
schema_version = 1

[table]
table = "T01"
game = "caribbean-stud"
variant = "live"
betting_seconds = 8.0
yellow_seconds = 3.0
decision_seconds = 5.0
deal_timeout_seconds = 30.0
camera_confirm_seconds = 2.0
round_gap_seconds = 3.0

[shoe]
backend = "simulated"
protocol = "framed"
pty = "{data}/run/{table}-shoe"
baudrate = 9600

[camera]
backend = "synthetic"
fps = 10.0

[journal]
path = "{data}/journals/{table}-{game}.journal"
durable_events = false
checkpoint_events = 100

[integrity]
manifest = ""
check_hours = 24.0

[clock]
step_bound_ms = 100.0
require_sync = false
check_seconds = 1.0

[bus]
public = "tcp://127.0.0.1:7710"
restricted = "tcp://127.0.0.1:7711"
replay = "tcp://127.0.0.1:7712"
commands = "tcp://127.0.0.1:7713"
keys_dir = ""
heartbeat_seconds = 1.0

[dealer]
enabled = true
draw_seconds = 0.8
camera_lag_seconds = 0.2
seed = 0

[metrics]
enabled = true
host = "127.0.0.1"
port = 7714
"""
"""The embedded defaults, as a TOML text a user can copy and edit (`studio run --print-config`)."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ShoeConfig(_Section):
    """The card shoe.

    `backend` "serial" reads a real shoe at `url` (any pyserial URL: a device path,
    `rfc2217://...`, `socket://...`); "simulated" starts a simulated shoe on a pseudo-terminal
    whose slave is linked at `pty`, and reads it through the same serial driver at that path.
    `protocol` is the shoe's byte protocol (a name of `drivers.shoe.PROTOCOLS`: "framed" or
    "barcode"). `log` (simulated only) writes
    the simulator's per-card log (JSON lines, with each card's write time) to that file.
    """

    backend: Literal["simulated", "serial"] = "simulated"
    protocol: ShoeProtocolName = "framed"
    url: str | None = None
    pty: str = "{data}/run/{table}-shoe"
    baudrate: int = Field(default=9600, gt=0)
    log: str | None = None
    usb_vendor: int | None = Field(default=None, ge=0, le=0xFFFF)
    usb_product: int | None = Field(default=None, ge=0, le=0xFFFF)
    usb_serial: str | None = None
    identity: str | None = None
    """For the framed protocol: the identity the shoe must report in its RESET frame."""

    def usb_pin(self) -> UsbPin | None:
        """The USB identity the shoe is pinned to (`usb_*`), or None when none is set.

        Any other device on the line is a device fault and is never read (`studio shoe list`
        shows each port's identity).
        """
        if self.usb_vendor is None and self.usb_product is None and self.usb_serial is None:
            return None
        return UsbPin(self.usb_vendor, self.usb_product, self.usb_serial)

    @model_validator(mode="after")
    def _url_for_serial(self) -> ShoeConfig:
        if self.backend == "serial" and not self.url:
            raise ValueError('shoe.url is required when shoe.backend = "serial"')
        return self


class CameraConfig(_Section):
    """The camera, by `backend`.

    - "none": no camera (the table does not wait for confirmations);
    - "simulated": the simulated dealer reports what lies where itself (no frames);
    - "synthetic": the felt the simulated dealer lays cards on, drawn in frames of a `design`
      deck ("jumbo" or "classic") and read by the recognizer with a profile learned at start;
    - "capture": a real camera at `url` (`device:0`, a video file, `rtsp://...`) read with the
      calibration profile directory at `profile` (its zones are the game's positions).

    `reader` names what decides a card corner's code (`drivers.camera.tuning.INDEX_READERS`:
    "learned", the deck's network; the older "templates" reader is gone and is refused).
    Frames are read `fps` times a second (10 by default: the table confirms a card on three
    agreeing frames, 0.3 s at 10 fps, so a card is confirmed within 0.5 s even when it lands
    just after a frame was grabbed; docs/camera.md); a source with no frame for
    `stall_seconds` is a device fault. `url` and `profile` belong to
    "capture" only, `design` to "synthetic" only.
    """

    backend: CameraBackendName = "none"
    fps: float = Field(default=10.0, gt=0, le=60)
    stall_seconds: float = Field(default=2.0, gt=0)
    url: str | None = None
    profile: str | None = None
    design: CardDesignName = "jumbo"
    reader: IndexReaderName = "learned"

    @model_validator(mode="after")
    def _keys_for_backend(self) -> CameraConfig:
        if self.backend == "capture":
            for key in ("url", "profile"):
                if not getattr(self, key):
                    raise ValueError(f'camera.{key} is required when camera.backend = "capture"')
        else:
            for key in ("url", "profile"):
                if getattr(self, key) is not None:
                    raise ValueError(f'camera.{key} applies only to camera.backend = "capture"')
        if "design" in self.model_fields_set and self.backend != "synthetic":
            raise ValueError('camera.design applies only to camera.backend = "synthetic"')
        return self


class JournalConfig(_Section):
    """Where the journal lives, and whether events fsync too (inputs always do).

    A table writes each input together with its events, one fsynced transaction, so they are
    durable either way; `durable_events` matters only to the events a recovery stores for a
    journal written two commits per input by an earlier version.

    A signed checkpoint of the journal's end goes out on the restricted stream every
    `checkpoint_events` events and at every round's end (`studio.journal.anchors`).
    """

    path: str = "{data}/journals/{table}-{game}.journal"
    durable_events: bool = False
    checkpoint_events: int = Field(default=100, ge=1)


class IntegrityConfig(_Section):
    """The certified manifest the table checks itself against (`studio integrity manifest`).

    `manifest` "" means no check. With one, the table hashes its installed packages and its
    effective configuration at start, on a shift manager's `check_integrity`, and every
    `check_hours`; a difference pauses the table until a manager resumes it.
    """

    manifest: str = ""
    check_hours: float = Field(default=24.0, gt=0)


class ClockConfig(_Section):
    """The watch on the table's clock (`studio.runtime.clock`).

    A wall-clock step beyond `step_bound_ms` against the monotonic clock pauses the table; so
    does, with `require_sync`, the kernel reporting the clock unsynchronised (off by default:
    containers and development machines often run without a time daemon). Both clocks are
    compared before every input and every `check_seconds`.
    """

    step_bound_ms: float = Field(default=100.0, gt=0)
    require_sync: bool = False
    check_seconds: float = Field(default=1.0, gt=0)


class BusConfig(_Section):
    """The table's ZeroMQ endpoints (tcp on loopback or ipc), key directory and heartbeat.

    `keys_dir` "" means `studio.bus.defaults.keys_dir()` (`$STUDIO_KEYS_DIR` or the data
    directory's `keys`).
    """

    public: str = bus_defaults.PUBLIC_ENDPOINT
    restricted: str = bus_defaults.RESTRICTED_ENDPOINT
    replay: str = bus_defaults.REPLAY_ENDPOINT
    commands: str = bus_defaults.COMMAND_ENDPOINT
    keys_dir: str = ""
    heartbeat_seconds: float = Field(default=1.0, gt=0)


class DealerConfig(_Section):
    """The simulated dealer (and with `camera.backend = "simulated"`, the camera's sightings).

    `enabled` deals rounds continuously: opens a round `table.round_gap_seconds` after the last
    ended, draws each card `draw_seconds` after the table can take it. `manager` is what a
    simulated shift manager does with a paused round after `manager_seconds`: "none" leaves it
    to a person (the default: faults latch until someone acts), "resume" or "void".
    """

    enabled: bool = True
    draw_seconds: float = Field(default=0.8, ge=0)
    camera_lag_seconds: float = Field(default=0.2, ge=0)
    seed: int = 0
    manager: Literal["none", "resume", "void"] = "none"
    manager_seconds: float = Field(default=2.0, ge=0)


class MetricsConfig(_Section):
    """The table's HTTP endpoint for Prometheus (`/metrics`) and probes (`/healthz`, `/readyz`).

    `port` 0 takes any free port (the run file and the start-up lines say which). Loopback by
    default: a scraper on another host needs `host` set to an address it can reach.
    """

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(default=7714, ge=0, le=65535)


class RuntimeConfig(_Section):
    """A whole table: the game settings (`table`) and the devices, journal, bus and dealer."""

    schema_version: int = SCHEMA_VERSION
    table: TableSettings
    shoe: ShoeConfig = ShoeConfig()
    camera: CameraConfig = CameraConfig()
    journal: JournalConfig = JournalConfig()
    integrity: IntegrityConfig = IntegrityConfig()
    clock: ClockConfig = ClockConfig()
    bus: BusConfig = BusConfig()
    dealer: DealerConfig = DealerConfig()
    metrics: MetricsConfig = MetricsConfig()

    @model_validator(mode="after")
    def _camera_agrees(self) -> RuntimeConfig:
        if self.table.camera != (self.camera.backend != "none"):
            raise ValueError(
                'table.camera must be true exactly when camera.backend is not "none" '
                "(it is set from camera.backend when left out)"
            )
        if self.camera.backend == "synthetic" and not (
            self.shoe.backend == "simulated" and self.dealer.enabled
        ):
            raise ValueError(
                'camera.backend = "synthetic" shows the felt the simulated dealer lays cards on: '
                'it needs shoe.backend = "simulated" and dealer.enabled = true (a real shoe or no '
                'dealer: set camera.backend = "capture" or "none")'
            )
        return self

    def expand(self, template: str) -> Path:
        """`template` with `{data}`, `{table}` and `{game}` filled in, as a path.

        Raises `ConfigurationError` for another placeholder, or one with an attribute, index,
        conversion or format spec (`str.format` would reach into the values or fail on them).
        """
        values = {"data": str(data_dir()), "table": self.table.table, "game": self.table.game}
        try:
            for _, field, spec, conversion in string.Formatter().parse(template):
                if field is not None and (field not in values or spec or conversion):
                    raise ValueError("the only placeholders are plain {data}, {table} and {game}")
        except ValueError as err:
            raise ConfigurationError(f"bad path template {template!r}: {err}") from err
        return Path(template.format(**values)).expanduser()

    @property
    def journal_path(self) -> Path:
        """The journal file."""
        return self.expand(self.journal.path)

    @property
    def keys_path(self) -> Path:
        """The key directory."""
        return self.expand(self.bus.keys_dir) if self.bus.keys_dir else bus_defaults.keys_dir()


def config_toml(config: RuntimeConfig) -> str:
    """Every setting of `config` as a TOML text that loads back to the same configuration.

    A setting with no value (`shoe.url` of a simulated shoe) and one its section would refuse
    if written (`camera.design` without the synthetic camera) appear as comments, so a reader
    sees every key there is. Written with tomlkit, which keeps those comments.
    """
    import tomlkit  # only `--print-config` needs it

    doc = tomlkit.document()
    for name in type(config).model_fields:
        value = getattr(config, name)
        if not isinstance(value, BaseModel):
            doc.add(name, value)
            continue
        section = tomlkit.table()
        given = value.model_dump(mode="json", exclude_unset=True)
        for key, item in value.model_dump(mode="json").items():
            if item is None:
                section.add(tomlkit.comment(f"{key} = (not set)"))
            elif item == {}:
                section.add(tomlkit.comment(f"{key} = {{}} (none)"))
            elif key in given or _accepts(value, given, key, item):
                section.add(key, _without_none(item))
            else:
                section.add(
                    tomlkit.comment(f"{key} = {json.dumps(item)} (not with these settings)")
                )
        doc.add(name, section)
    return tomlkit.dumps(doc)


def _without_none(item: Any) -> Any:
    """`item` with the None values of nested tables left out (TOML has no null; absent is None)."""
    if isinstance(item, dict):
        return {k: _without_none(v) for k, v in item.items() if v is not None}
    return item


def _accepts(section: BaseModel, given: dict[str, Any], key: str, item: Any) -> bool:
    """Whether `section` would still validate with `key` written out as `item`."""
    try:
        type(section).model_validate({**given, key: item})
    except ValidationError:
        return False
    return True


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _nearest_key(loc: tuple[int | str, ...]) -> str:
    """`" (did you mean KEY?)"` for an unknown key at `loc`, from the keys its section takes."""
    model: type[BaseModel] = RuntimeConfig
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return ""
        model = annotation
    return did_you_mean(str(loc[-1]), model.model_fields)


def build_config(data: dict[str, Any]) -> RuntimeConfig:
    """Validate `data` (the TOML's tables) laid over the embedded defaults.

    `table.camera` follows `camera.backend` unless given. Raises `ConfigurationError` with the
    first problem's key and message.
    """
    merged = _merge(tomllib.loads(DEFAULT_TOML), data)
    table = merged.get("table")
    camera = merged.get("camera")
    if isinstance(table, dict) and isinstance(camera, dict) and "camera" not in table:
        table["camera"] = camera.get("backend", "none") != "none"
    try:
        return RuntimeConfig.model_validate(merged)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        # A check of ours (a ValueError) reads best as its own words, without pydantic's prefix.
        cause = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
        message = str(cause) if cause is not None else first["msg"]
        if first["type"] == "extra_forbidden":
            message += _nearest_key(first["loc"])
        raise ConfigurationError(
            f"config{' ' + where if where else ''}: {message} ({err.error_count()} error(s))"
        ) from err


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    game: str | None = None,
    camera: str | None = None,
) -> RuntimeConfig:
    """The configuration in the TOML file at `path` (None: the embedded defaults).

    `game` overrides `table.game` (the `--game` option), `camera` overrides `camera.backend`
    (the `--camera` option). Raises `ConfigurationError` when the
    file cannot be read, is not TOML, or does not validate.
    """
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as err:
            raise ConfigurationError(f"cannot read config {path}: {err.strerror}") from err
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigurationError(f"config {path} is not valid TOML: {err}") from err
    if game is not None:
        table = data.setdefault("table", {})
        if not isinstance(table, dict):
            raise ConfigurationError("config table: must be a TOML table")
        table["game"] = game
    if camera is not None:
        section = data.setdefault("camera", {})
        if not isinstance(section, dict):
            raise ConfigurationError("config camera: must be a TOML table")
        section["backend"] = camera
    return build_config(data)
