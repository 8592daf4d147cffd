"""A slow browser: a screen that takes nothing neither holds up the others nor piles up frames.

A live simulated table and a real `studio console` process. A manager's table page is opened by
a client that completes the WebSocket handshake on a socket with a tiny receive buffer and then
never reads (a browser tab frozen on a slow machine). Meanwhile a real headless Chromium shows
the same page and keeps following the rounds. The console writes nothing more to the frozen
screen while what it sent is untaken, then cuts it off with a reset (freeing the connection's
buffers); a screen that reconnects starts from the table as it is now, not from a backlog.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import socket
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import aiohttp
import pytest
from console_support import PASSWORDS, browser, console_for, sign_in
from test_e2e_support import table_rig

from studio.console.auth import COOKIE

SIMULATED_CAMERA = '[camera]\nbackend = "simulated"\n'

TCP_ESTABLISHED = 1
"""`tcpi_state` of an open connection (linux/tcp_states.h); the first byte of `TCP_INFO`."""


def _session_cookie(url: str, name: str) -> str:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    try:
        form = urlencode({"name": name, "password": PASSWORDS[name]})
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        conn.request("POST", "/signin", body=form, headers=headers)
        reply = conn.getresponse()
        assert reply.status == 303, reply.status
        cookie = reply.getheader("Set-Cookie") or ""
    finally:
        conn.close()
    value = cookie.split(";", 1)[0]
    assert value.startswith(f"{COOKIE}="), cookie
    return value


def _frozen_screen(url: str, cookie: str) -> socket.socket:
    """A WebSocket to the table page whose reader never reads after the handshake."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Before connecting, so the window the console may fill is as small as the kernel allows.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.settimeout(30)
    sock.connect((parts.hostname or "127.0.0.1", parts.port or 80))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/table/T01 HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nCookie: {cookie}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: not one byte of a frame is read
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _tcp_state(sock: socket.socket) -> int:
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    state: int = struct.unpack("B", info[:1])[0]
    return state


async def _first_frame(url: str, cookie: str) -> dict[str, object]:
    name, value = cookie.split("=", 1)
    ws_url = url.replace("http://", "ws://") + "/ws/table/T01"
    async with (
        aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http,
        http.ws_connect(ws_url, headers={"Cookie": f"{name}={value}"}) as ws,
    ):
        message = await ws.receive(timeout=30)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        frame: dict[str, object] = json.loads(message.data)
        return frame


def test_a_frozen_screen_is_cut_off_and_never_holds_up_the_others(tmp_path: Path) -> None:
    if not hasattr(socket, "TCP_INFO"):
        pytest.skip("TCP_INFO (Linux) tells when the console reset the frozen screen")
    with table_rig(tmp_path, extra=SIMULATED_CAMERA) as rig, browser() as chromium:
        rig.start()
        with console_for(rig) as console:
            cookie = _session_cookie(console.url, "alice")
            frozen = _frozen_screen(console.url, cookie)
            try:
                page = chromium.new_page()
                sign_in(page, console.url, "alice")
                page.goto(f"{console.url}/table/T01")
                games: list[str] = []
                deadline = time.monotonic() + 120
                # The live page follows the rounds while the frozen one takes nothing, until the
                # console cuts the frozen one off (a reset: its state is no longer established).
                while time.monotonic() < deadline and _tcp_state(frozen) == TCP_ESTABLISHED:
                    text = page.locator("#state").inner_text()
                    game = text.split("game ", 1)[1].split(" ", 1)[0] if "game " in text else ""
                    if game not in ("", "-") and (not games or games[-1] != game):
                        games.append(game)
                    page.wait_for_timeout(100)
                assert _tcp_state(frozen) != TCP_ESTABLISHED, "the frozen screen was never cut"
                # The others were never held up: the live page went on through several rounds.
                assert len(games) >= 2, games
                # A screen that reconnects starts from the table as it is now, not a backlog.
                # (In a thread of its own: Playwright's sync API runs an event loop in this one.)
                with ThreadPoolExecutor(1) as pool:
                    fresh = pool.submit(asyncio.run, _first_frame(console.url, cookie)).result()
                assert fresh["table"] == "T01"
                assert fresh["game_number"] not in games[:-1], (fresh["game_number"], games)
                page.close()
            finally:
                frozen.close()
