"""A pinned shoe: any other device on the line is a fault and never a source of cards."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from serial.tools.list_ports_common import ListPortInfo
from shoe_readers import Reader
from test_e2e_support import TableRig, table_rig

from drivers.errors import FrameError
from drivers.shoe.framed import Frame, FrameCodec, FrameType, encode_frame, reset_payload
from drivers.shoe.host import FramedHost
from drivers.shoe.identity import PortIdentity, UsbPin, pin_problem, ports, usb_verifier
from drivers.shoe.readings import CardRead, FaultReason, ShoeFault, ShoeReset
from drivers.shoe.simulator import SimulatedShoe

PIN = UsbPin(vendor=0x0403, product=0x6001, serial="SHOE-7")


def _port(device: str, vid: int | None, pid: int | None, serial: str | None) -> PortIdentity:
    info = ListPortInfo(device)
    info.vid, info.pid, info.serial_number = vid, pid, serial
    info.manufacturer, info.product = "FTDI", "FT232R"
    return PortIdentity.of(info)


def test_only_the_pinned_identity_passes_by_path_or_link(tmp_path: Path) -> None:
    device = tmp_path / "ttyUSB0"
    device.touch()
    link = tmp_path / "usb-FTDI_FT232R_SHOE-7-if00-port0"
    link.symlink_to(device)
    right = [_port(str(device), 0x0403, 0x6001, "SHOE-7")]
    assert pin_problem(PIN, str(device), right) is None
    assert pin_problem(PIN, str(link), right) is None  # /dev/serial/by-id names the same port
    other = [_port(str(device), 0x0403, 0x6001, "SHOE-8")]
    assert pin_problem(PIN, str(device), other) == (
        f"{device} is not the pinned shoe: serial SHOE-8 (pinned SHOE-7)"
    )
    clone = [_port(str(device), 0x1A86, 0x7523, "SHOE-7")]
    problem = pin_problem(PIN, str(device), clone)
    assert problem is not None and "vendor 1a86 (pinned 0403)" in problem
    assert "product 7523 (pinned 6001)" in problem
    # A pty or a network line has no USB identity to show.
    assert "no USB serial port" in (pin_problem(PIN, "socket://127.0.0.1:7000", right) or "")
    assert "no USB serial port" in (pin_problem(PIN, str(tmp_path / "pty"), right) or "")
    # A pin on the vendor alone lets any of that vendor's serial numbers through.
    assert pin_problem(UsbPin(vendor=0x0403), str(device), other) is None
    assert "FT232R" in right[0].describe() and "0403:6001" in right[0].describe()


def test_a_wrong_device_on_the_line_is_never_read(tmp_path: Path, make_reader: Reader) -> None:
    path = tmp_path / "shoe"
    with SimulatedShoe(f"pty:{path}", "framed", cards=5, interval=0.01).start():
        # The pty stands for a USB port whose serial number is not the pinned one.
        wrong = usb_verifier(PIN, lambda: [_port(str(path), 0x0403, 0x6001, "SHOE-8")])
        with make_reader(str(path), "framed", verify=wrong) as shoe:
            seen = []
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                delivery = shoe.read(timeout=0.05)
                if delivery is not None:
                    seen.append(delivery.item)
            assert seen == [
                ShoeFault(
                    FaultReason.WRONG_DEVICE,
                    f"{path} is not the pinned shoe: serial SHOE-8 (pinned SHOE-7)",
                )
            ]  # reported once, and not one card read
            assert shoe.health().frames == 0
        right = usb_verifier(PIN, lambda: [_port(str(path), 0x0403, 0x6001, "SHOE-7")])
        with make_reader(str(path), "framed", verify=right) as shoe:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                delivery = shoe.read(timeout=0.05)
                if delivery is not None and isinstance(delivery.item, CardRead):
                    break
            else:
                raise AssertionError("the pinned shoe's cards were not read")


def test_a_table_pinned_to_another_shoe_pauses_and_deals_nothing(tmp_path: Path) -> None:
    extra = (
        '[camera]\nbackend = "none"\n'
        '[shoe]\nusb_vendor = 0x0403\nusb_product = 0x6001\nusb_serial = "SHOE-7"\n'
    )
    with table_rig(tmp_path, extra=extra) as rig:
        rig.start()
        manager = str(rig.keys_dir / "shift-manager.key_secret")
        deadline = time.monotonic() + 15
        view: dict[str, object] = {}
        while time.monotonic() < deadline:
            status = subprocess.run(
                [sys.executable, "-m", "studio.cli", "status", "--json", "--key", manager],
                env=rig.env,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            view = json.loads(status.stdout)
            if view.get("incidents"):
                break
            time.sleep(0.2)
        incidents = view["incidents"]
        assert isinstance(incidents, list) and incidents, view
        assert incidents[0]["kind"] == "device_fault"
        assert "wrong_device" in incidents[0]["detail"]
        assert "is no USB serial port" in incidents[0]["detail"]
        assert view["devices"] == {"shoe": "fault"}
        cards = view["cards"]
        assert cards == [] or all(c["code"] is None for c in cards)  # type: ignore[union-attr]


def test_ports_lists_what_pyserial_finds() -> None:
    listed = ports([ListPortInfo("/dev/ttyS9"), ListPortInfo("/dev/ttyS1")])
    assert [p.device for p in listed] == ["/dev/ttyS1", "/dev/ttyS9"]
    assert listed[0].describe() == "/dev/ttyS1: no USB identity (n/a)"


def test_a_reset_frame_carries_the_shoes_identity() -> None:
    host = FramedHost()
    frame = encode_frame(Frame(7, 1, FrameType.RESET, reset_payload(3, "ACME 9000 SN 42")))
    items, _ = host.feed(frame, 0.0)
    assert items == [ShoeReset(1, 7, "ACME 9000 SN 42")]
    # Firmware that names nothing still speaks the protocol: its session is unidentified.
    items, _ = FramedHost().feed(encode_frame(Frame(8, 1, FrameType.RESET, bytes((3,)))), 0.0)
    assert items == [ShoeReset(1, 8, None)]
    bad = encode_frame(Frame(9, 1, FrameType.RESET, bytes((3, 4)) + b"a\x00bc"))
    assert isinstance(FrameCodec().feed(bad)[0], FrameError)


def _status_until_incident(rig: TableRig) -> dict[str, object]:
    env = rig.env
    manager = str(rig.keys_dir / "shift-manager.key_secret")
    deadline = time.monotonic() + 15
    view: dict[str, object] = {}
    while time.monotonic() < deadline:
        status = subprocess.run(
            [sys.executable, "-m", "studio.cli", "status", "--json", "--key", manager],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        view = json.loads(status.stdout)
        if view.get("incidents") or view.get("game_number"):
            break
        time.sleep(0.2)
    return view


def test_a_framed_shoe_naming_another_identity_is_no_source_of_cards(tmp_path: Path) -> None:
    extra = '[camera]\nbackend = "none"\n[shoe]\nidentity = "ACME 9000 SN 42"\n'
    (tmp_path / "wrong").mkdir()
    with table_rig(tmp_path / "wrong", extra=extra) as rig:
        rig.start()
        view = _status_until_incident(rig)
        incidents = view["incidents"]
        assert isinstance(incidents, list) and incidents, view
        assert incidents[0]["kind"] == "device_fault"
        assert incidents[0]["detail"] == (
            "wrong_device: the shoe on the line says it is 'studio simulated shoe', "
            "not the pinned 'ACME 9000 SN 42'"
        )
        assert view["game_number"] is None  # no round opened, no card taken
    right = '[camera]\nbackend = "none"\n[shoe]\nidentity = "studio simulated shoe"\n'
    (tmp_path / "right").mkdir()
    with table_rig(tmp_path / "right", extra=right) as rig:
        rig.start()
        view = _status_until_incident(rig)
        assert view["incidents"] == [] and view["game_number"] is not None, view
