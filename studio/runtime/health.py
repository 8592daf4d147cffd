"""`MetricsServer`: one small HTTP server per table for Prometheus and for health probes.

- `GET /metrics`: the table's registry in Prometheus' text format (prometheus_client's WSGI app);
- `GET /healthz`: 200 `alive` while the table's event loop answers within `ALIVE_TIMEOUT`,
  else 503 (a hung loop: restart the process);
- `GET /readyz`: 200 `ready` when every device is up and the journal is writable, else 503 with
  one line per reason (the table is up but not fit to deal: send a person, not a restart).

It runs in its own threads (wsgiref with a thread per request), so a scrape never waits on the
table's loop except for the liveness probe, which is exactly that wait.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socketserver
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app

from studio.closing import Closing
from studio.errors import ConfigurationError
from studio.messages.view import TableView

log = logging.getLogger(__name__)

ALIVE_TIMEOUT = 2.0
"""Seconds the liveness probe waits for the table's loop to run a no-op."""

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    # A table restarted at once must get its port back while the old socket is in TIME_WAIT.
    allow_reuse_address = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        # A scrape every few seconds is not news; wsgiref would print each one on stderr.
        log.debug("http: " + format, *args)


class MetricsServer(Closing):
    """Serve `registry` and the two probes on `host:port` (port 0: any free port).

    `alive()` says whether the table's loop answers; `not_ready()` lists why the table is not
    fit to deal (empty: ready). Raises `ConfigurationError` when the address cannot be bound.
    Context manager; `close()` is idempotent and joins the serving thread.
    """

    def __init__(
        self,
        host: str,
        port: int,
        registry: CollectorRegistry,
        *,
        alive: Callable[[], bool],
        not_ready: Callable[[], list[str]],
    ) -> None:
        self._metrics_app = make_wsgi_app(registry)
        self._alive = alive
        self._not_ready = not_ready
        try:
            self._server = make_server(
                host, port, self._route, server_class=_ThreadingServer, handler_class=_QuietHandler
            )
        except OSError as err:
            raise ConfigurationError(
                f"metrics: cannot listen on {host}:{port}: {err.strerror or err}"
                " (set [metrics] port to a free port, or 0 for any)"
            ) from err
        self._thread: threading.Thread | None = threading.Thread(
            target=self._server.serve_forever, name="metrics-http", daemon=True
        )
        self._thread.start()

    @property
    def address(self) -> str:
        """`http://HOST:PORT` as bound (a port 0 request shows the port chosen)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def _route(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "/")
        if path == "/metrics":
            result: Iterable[bytes] = self._metrics_app(environ, start_response)
            return result
        if path == "/healthz":
            alive = self._alive()
            lines = ["alive"] if alive else ["event loop not answering"]
            return _text(start_response, alive, lines)
        if path == "/readyz":
            reasons = self._not_ready()
            return _text(start_response, not reasons, reasons or ["ready"])
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"not found: try /metrics, /healthz or /readyz\n"]

    def close(self) -> None:
        """Stop serving and join the thread; calling it again does nothing."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._server.shutdown()
        self._server.server_close()
        thread.join()


def _text(start_response: StartResponse, ok: bool, lines: list[str]) -> list[bytes]:
    status = "200 OK" if ok else "503 Service Unavailable"
    start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
    return ["".join(f"{line}\n" for line in lines).encode()]


def loop_answers(loop: asyncio.AbstractEventLoop | None, timeout: float = ALIVE_TIMEOUT) -> bool:
    """Whether `loop` runs a no-op within `timeout` seconds (a hung loop deals nothing).

    Called from another thread than the loop's.
    """
    if loop is None or loop.is_closed():
        return False
    try:
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout)
    except (TimeoutError, RuntimeError):
        return False
    return True


def not_ready(
    view: TableView | None, journal: Path, failure: BaseException | None, *, stopping: bool
) -> list[str]:
    """Why a table is not fit to deal (empty: ready), one reason per line of `/readyz`.

    A device that is not `ok` in `view`, a journal (or its folder) this process may not write,
    a journal failure that stopped the table, or a table stopping.
    """
    reasons: list[str] = []
    if stopping:
        reasons.append("table stopping")
    if failure is not None:
        reasons.append(f"journal failed: {failure}")
    if not os.access(journal, os.W_OK) or not os.access(journal.parent, os.W_OK):
        reasons.append(f"journal not writable: {journal}")
    if view is not None:
        reasons.extend(
            f"{device} {status}" for device, status in view.devices.items() if status != "ok"
        )
    return reasons
