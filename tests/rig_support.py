"""The table configuration of a rig: a `studio run` in one directory, for tests, benches and docs.

Not part of the product (nothing under `studio/` imports it): it lives with the tests, and
`bench/console_latency.py` and `docs/console/screenshots.py` put `tests/` on their path for it.

A rig keeps everything a table touches under one `root` directory, so two rigs (or a rig and a
table someone else runs on the same machine) never meet: its bus listens on ipc endpoints in
`root` (`pub`, `res`, `rep`, `cmd`), its keys live in `root/keys`, and its metrics take any free
port. Its shoe is a barcode shoe read at `root/shoe` (a pseudo-terminal the rig's owner
writes card codes into, `drivers.shoe.sim_line.PtyLine`), the simulated shoe the simulated
dealer draws from, or any shoe section given whole.

The end-to-end tests (`test_e2e_support.TableRig`), the console's browser tests,
`bench/console_latency.py` and `docs/console/screenshots.py` all write their tables with
`RigConfig`, so the way a rig is wired is written once here; each states only what it does
differently (its pace, its camera, its shoe).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from studio.config import (
    BusConfig,
    CameraConfig,
    DealerConfig,
    IntegrityConfig,
    MetricsConfig,
    RuntimeConfig,
    ShoeConfig,
    config_toml,
)
from studio.messages import TableSettings


class RigConfig(BaseModel):
    """One rig's table: its id, pace, shoe, camera and dealer, wired under `root`.

    The timings default to a quick pace (a round in about a second) that still leaves a browser
    time to see each phase. `shoe` "pty" is a barcode shoe on the line at `root/shoe`;
    "simulated" is the simulated shoe; a `ShoeConfig` is used as it is. `keys_dir` None is
    `root/keys`; a second table on the same machine names the first one's, so one console's
    keys reach both. Unknown fields are refused.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path
    table: str = "T01"
    game: str = "caribbean-stud"
    betting_seconds: float = Field(default=0.3, gt=0)
    yellow_seconds: float = Field(default=0.1, ge=0)
    decision_seconds: float = Field(default=0.3, gt=0)
    round_gap_seconds: float = Field(default=0.2, ge=0)
    camera_confirm_seconds: float = Field(default=2.0, gt=0)
    auto_start: bool = True
    card_source: Literal["shoe", "camera"] = "shoe"
    shoe: Literal["pty", "simulated"] | ShoeConfig = "pty"
    camera: CameraConfig = CameraConfig(backend="none")
    dealer: DealerConfig = DealerConfig()
    integrity: IntegrityConfig = IntegrityConfig()
    keys_dir: Path | None = None

    @property
    def shoe_line(self) -> Path:
        """Where a "pty" shoe's line is: the rig's owner opens a `PtyLine` here."""
        return self.root / "shoe"

    def runtime(self) -> RuntimeConfig:
        """The whole table configuration. Raises `pydantic.ValidationError` for a bad setting."""
        root = self.root
        if isinstance(self.shoe, ShoeConfig):
            shoe = self.shoe
        elif self.shoe == "pty":
            shoe = ShoeConfig(backend="serial", protocol="barcode", url=str(self.shoe_line))
        else:
            shoe = ShoeConfig()
        return RuntimeConfig(
            table=TableSettings(
                table=self.table,
                game=self.game,
                betting_seconds=self.betting_seconds,
                yellow_seconds=self.yellow_seconds,
                decision_seconds=self.decision_seconds,
                round_gap_seconds=self.round_gap_seconds,
                camera=self.camera.backend != "none",
                camera_confirm_seconds=self.camera_confirm_seconds,
                auto_start=self.auto_start,
                card_source=self.card_source,
            ),
            shoe=shoe,
            camera=self.camera,
            bus=BusConfig(
                public=f"ipc://{root}/pub",
                restricted=f"ipc://{root}/res",
                replay=f"ipc://{root}/rep",
                commands=f"ipc://{root}/cmd",
                keys_dir=str(self.keys_dir or root / "keys"),
                # A fast heartbeat: a console or subscriber under test sees the table live at once.
                heartbeat_seconds=0.2,
            ),
            dealer=self.dealer,
            integrity=self.integrity,
            metrics=MetricsConfig(port=0),
        )

    def write(self, path: Path | None = None) -> Path:
        """Write the configuration as TOML to `path` (None: `root/table.toml`); returns the path."""
        target = path if path is not None else self.root / "table.toml"
        target.write_text(config_toml(self.runtime()), encoding="utf-8")
        return target
