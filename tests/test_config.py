"""The table config: embedded defaults, TOML over them, unknown keys and bad values refused."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel
from rig_support import RigConfig

from studio.cli import main
from studio.config import CameraConfig, RuntimeConfig, build_config, load_config
from studio.errors import ConfigurationError


def test_the_embedded_defaults_are_a_simulated_caribbean_table_with_the_synthetic_camera(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    config = load_config(None)
    assert config.table.game == "caribbean-stud"
    assert config.shoe.backend == "simulated"
    assert config.dealer.enabled
    assert config.bus.public.startswith("tcp://127.0.0.1:")
    assert config.journal_path == tmp_path / "studio" / "journals" / "T01-caribbean-stud.journal"
    # The synthetic camera confirms every card of a demo: the table waits for it.
    assert (config.camera.backend, config.camera.fps, config.camera.design) == (
        "synthetic",
        10.0,
        "jumbo",
    )
    assert config.table.camera


def test_a_file_names_only_what_differs(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[table]\ntable = "T07"\nbetting_seconds = 12\n[shoe]\nprotocol = "barcode"\n')
    config = load_config(path)
    assert (config.table.table, config.table.betting_seconds) == ("T07", 12)
    assert config.shoe.protocol == "barcode"
    assert config.table.decision_seconds == 5.0  # from the defaults


def test_game_option_overrides_the_file(tmp_path: Path) -> None:
    config = load_config(None, game="ultimate-holdem")
    assert config.table.game == "ultimate-holdem"
    assert config.journal.path.endswith("{table}-{game}.journal")


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"tabel": {}}, "tabel"),
        ({"table": {"colour": "red"}}, "table.colour"),
        ({"shoe": {"baud": 9600}}, "shoe.baud"),
        ({"bus": {"public": "tcp://127.0.0.1:1", "extra": 1}}, "bus.extra"),
        ({"dealer": {"speed": 2}}, "dealer.speed"),
        ({"camera": {"rate": 5}}, "camera.rate"),
    ],
)
def test_unknown_keys_are_refused_naming_them(data: dict[str, object], where: str) -> None:
    with pytest.raises(ConfigurationError, match=rf"config {where}: Extra inputs"):
        build_config(data)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"table": {"game": "blackjack"}}, "unknown game"),
        ({"table": {"betting_seconds": 2, "yellow_seconds": 3}}, "yellow_seconds"),
        ({"shoe": {"backend": "usb"}}, "shoe.backend"),
        ({"shoe": {"backend": "serial"}}, "shoe.url is required"),
        ({"camera": {"backend": "simulated"}, "table": {"camera": False}}, "table.camera"),
        ({"dealer": {"draw_seconds": -1}}, "dealer.draw_seconds"),
        ({"camera": {"backend": "webcam"}}, "camera.backend"),
        ({"camera": {"fps": 0}}, "camera.fps"),
        ({"camera": {"stall_seconds": 0}}, "camera.stall_seconds"),
        ({"camera": {"backend": "capture", "profile": "p"}}, "camera.url is required"),
        ({"camera": {"backend": "capture", "url": "device:0"}}, "camera.profile is required"),
        ({"camera": {"url": "device:0"}}, 'camera.url applies only to camera.backend = "capture"'),
        ({"camera": {"backend": "none", "design": "classic"}}, "camera.design applies only"),
        ({"camera": {"design": "tarot"}}, "camera.design"),
        # Nobody lays cards on the synthetic felt without the simulated dealer.
        ({"shoe": {"backend": "serial", "url": "/dev/ttyUSB0"}}, 'camera.backend = "synthetic"'),
        ({"dealer": {"enabled": False}}, 'needs shoe.backend = "simulated" and dealer.enabled'),
    ],
)
def test_bad_values_are_one_line_errors(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as caught:
        build_config(data)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_the_camera_backend_sets_the_tables_camera() -> None:
    assert build_config({"camera": {"backend": "simulated"}}).table.camera
    assert not build_config({"camera": {"backend": "none"}}).table.camera
    capture = build_config(
        {"camera": {"backend": "capture", "url": "rtsp://cam/1", "profile": "{data}/profile"}}
    )
    assert capture.table.camera and capture.camera.url == "rtsp://cam/1"


def test_a_camera_only_table_needs_a_camera_backend() -> None:
    table = {"card_source": "camera"}
    config = build_config({"table": table, "camera": {"backend": "simulated"}})
    assert config.table.card_source == "camera" and config.table.camera
    with pytest.raises(ConfigurationError, match='card_source "camera" needs a camera'):
        build_config({"table": table, "camera": {"backend": "none"}})


def test_unreadable_or_malformed_files_are_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read config"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\n")
    with pytest.raises(ConfigurationError, match="not valid TOML"):
        load_config(bad)


@pytest.mark.parametrize(
    "template",
    [
        "{home}/j.journal",
        # An attribute, a format spec or a conversion was a traceback, or (!r) a quoted
        # directory the operator never meant.
        "{data.parent}/j.journal",
        "{data.x}/j.journal",
        "{data:>9}/j.journal",
        "{table!r}/j.journal",
        "{data[0]}/j.journal",
    ],
)
def test_a_bad_path_template_is_a_configuration_error(template: str) -> None:
    config = build_config({"journal": {"path": template}})
    with pytest.raises(ConfigurationError, match="bad path template"):
        _ = config.journal_path


@pytest.mark.parametrize(
    "text",
    [
        "",
        '[camera]\nbackend = "none"\n',
        "[table.limits.ante]\nminimum = 5\nmaximum = 50\n[table.limits.trips]\nmaximum = 25\n",
        '[shoe]\nbackend = "serial"\nurl = "/dev/ttyS9"\n[camera]\nbackend = "none"\n',
    ],
)
def test_print_config_names_every_setting_and_loads_back(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = tmp_path / "t.toml"
    given.write_text(text)
    assert main(["run", "--print-config", "--config", str(given), "--game", "ultimate-holdem"]) == 0
    printed = capsys.readouterr().out
    config = load_config(given, game="ultimate-holdem")
    assert build_config(tomllib.loads(printed)) == config
    sections = {n: f for n, f in RuntimeConfig.model_fields.items() if n != "schema_version"}
    for name, field in sections.items():
        assert f"[{name}]" in printed
        model = field.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        block = printed.split(f"[{name}]\n", 1)[1].split("\n[", 1)[0]
        keys = {line.lstrip("# ").split(" =")[0] for line in block.splitlines() if " = " in line}
        keys |= set(re.findall(rf"^\[{name}\.(\w+)[.\]]", printed, re.M))  # a table of tables
        assert keys == set(model.model_fields), (name, keys ^ set(model.model_fields))


def test_run_prints_the_defaults_and_refuses_bad_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--print-config"]) == 0
    printed = capsys.readouterr().out
    assert build_config(tomllib.loads(printed)) == load_config(None)
    assert build_config({}) == load_config(None)
    bad = tmp_path / "t.toml"
    bad.write_text("[shoe]\nspeed = 1\n")
    assert main(["run", "--config", str(bad)]) == 2
    assert "config shoe.speed" in capsys.readouterr().err
    assert main(["run", "--rounds", "0"]) == 2


def test_a_check_across_sections_reads_as_its_own_words() -> None:
    # It read "config config: Value error, camera.backend = ...".
    with pytest.raises(ConfigurationError) as info:
        build_config({"shoe": {"backend": "serial", "url": "/dev/ttyUSB0"}})
    assert str(info.value).startswith('config: camera.backend = "synthetic" shows the felt')


def test_a_rigs_table_keeps_everything_under_its_root_and_loads_back(tmp_path: Path) -> None:
    rig = RigConfig(root=tmp_path, table="T02", round_gap_seconds=1.0)
    config = load_config(rig.write())
    assert config == rig.runtime()
    assert (config.table.table, config.table.round_gap_seconds, config.table.auto_start) == (
        "T02",
        1.0,
        True,
    )
    assert {config.bus.public, config.bus.restricted, config.bus.replay, config.bus.commands} == {
        f"ipc://{tmp_path}/{name}" for name in ("pub", "res", "rep", "cmd")
    }
    assert config.keys_path == tmp_path / "keys" and config.metrics.port == 0
    assert (config.shoe.backend, config.shoe.protocol) == ("serial", "barcode")
    assert config.shoe.url == str(rig.shoe_line) and not config.table.camera
    # A second table beside it: the simulated shoe, a camera, the first table's keys.
    other = RigConfig(
        root=tmp_path / "other",
        shoe="simulated",
        camera=CameraConfig(backend="simulated"),
        keys_dir=tmp_path / "keys",
    )
    (tmp_path / "other").mkdir()
    beside = load_config(other.write())
    assert beside.shoe.backend == "simulated" and beside.table.camera
    assert beside.keys_path == tmp_path / "keys"
