"""Devices and incidents: faults that pause the table, device health and silence.

A fault latches: the table pauses (every timer frozen) and stays paused until a shift manager
acts (`studio.controller.commands`).
"""

from __future__ import annotations

from studio.controller.events import emit
from studio.controller.state import Health, Incident, TableState, TimerName, micros
from studio.controller.timers import freeze, set_timer
from studio.messages import (
    DeviceHealthChanged,
    DeviceStatus,
    IncidentKind,
    IncidentReported,
    RoundPaused,
)


def fault(
    st: TableState,
    kind: IncidentKind,
    *,
    position: str | None = None,
    cards: tuple[str, ...] = (),
    device: str | None = None,
    raw: str = "",
    detail: str = "",
) -> None:
    """Pause (freezing every timer) and report an incident: public notice, restricted detail."""
    st.incident_count += 1
    incident = Incident(st.incident_count, kind, position, cards, device, raw, detail)
    st.incidents.append(incident)
    if not st.paused:
        freeze(st)
        st.paused = True
    emit(st, RoundPaused(incident=incident.number, kind=kind))
    emit(st, IncidentReported.model_validate(incident.to_json()), "restricted")


def heard(st: TableState, device: str) -> None:
    """`device` spoke: restart its silence watchdog; one that was silent is ok again."""
    if st.settings.device_silence_seconds is not None:
        set_timer(st, TimerName("silent", device), micros(st.settings.device_silence_seconds))
    if st.devices.get(device) == "silent":
        set_health(st, device, "ok", "answering again")


def set_health(st: TableState, device: str, status: Health, detail: str) -> None:
    """Record and publish (restricted) a device's health."""
    st.devices[device] = status
    emit(st, DeviceHealthChanged(device=device, status=status, detail=detail), "restricted")


def device_went_silent(st: TableState, timer: TimerName) -> None:
    """The silence watchdog of `timer.subject` fired."""
    device = timer.subject
    seconds = st.settings.device_silence_seconds
    detail = f"no word from the {device} for {seconds:g} s"
    set_health(st, device, "silent", detail)
    fault(st, "device_silent", device=device, detail=detail)


def device_status(st: TableState, inp: DeviceStatus) -> None:
    """A device reported its health: a fault latches (until acknowledged), ok clears a fault."""
    if inp.device not in st.source.devices:
        return
    heard(st, inp.device)
    if inp.status == "fault":
        if st.devices[inp.device] != "fault":
            set_health(st, inp.device, "fault", inp.detail)
            fault(st, "device_fault", device=inp.device, raw=inp.raw, detail=inp.detail)
    elif st.devices[inp.device] == "fault":
        set_health(st, inp.device, "ok", inp.detail)


def restarted(st: TableState, at: int) -> None:
    """The controller's process restarted: a round in progress pauses with an incident.

    The time the process was down must not count against anyone: timers freeze at the last
    moment the controller knew, before the restart's own time.
    """
    if st.active is not None:
        fault(st, "controller_restarted", detail="the controller restarted mid-round")
    st.now = max(st.now or at, at)
    for device in st.source.devices:
        heard(st, device)
