"""Every service one studio machine runs with no arguments listens on its own port.

The table, `studio proxy`, `studio jackpot` and the table's metrics all start on embedded
defaults; two of them sharing a port would make the second fail to bind (or, worse, a client
dial the wrong service) on the very machine the README sets up.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from studio.bus import defaults
from studio.config import MetricsConfig
from studio.jackpot.config import JackpotConfig


def test_the_default_services_of_one_machine_listen_on_distinct_ports() -> None:
    endpoints = {
        "public stream": defaults.PUBLIC_ENDPOINT,
        "restricted stream": defaults.RESTRICTED_ENDPOINT,
        "replay": defaults.REPLAY_ENDPOINT,
        "commands": defaults.COMMAND_ENDPOINT,
        "proxy": defaults.PROXY_FRONTEND,
        "proxy restricted": defaults.PROXY_RESTRICTED_FRONTEND,
        "jackpot overlays": JackpotConfig().publish,
    }
    ports = {name: urlsplit(endpoint).port for name, endpoint in endpoints.items()}
    ports["metrics"] = MetricsConfig().port
    assert all(urlsplit(e).hostname == "127.0.0.1" for e in endpoints.values())
    by_port: dict[int | None, list[str]] = {}
    for name, port in ports.items():
        by_port.setdefault(port, []).append(name)
    assert {port: names for port, names in by_port.items() if len(names) > 1} == {}
