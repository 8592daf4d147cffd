"""The console refuses bad input over real HTTP: wrong passwords (rate-limited), expired or forged
sessions, cross-site and replayed requests, a void with no reason, an observer's action.

The console runs in this process on a loopback port (aiohttp's test server) with a table address
where no table answers: every check here happens before anything is relayed.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import test_utils
from console_support import PASSWORDS, write_users
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from studio.bus.keys import KeyPair
from studio.console.auth import COOKIE
from studio.console.link import TableAddress
from studio.console.users import UserDirectory
from studio.console.web import ConsoleServer, ConsoleSettings

SECRET = b"s" * 32


@pytest.fixture(scope="module", name="users")
def users_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Hashing with argon2 is slow on purpose: one user file serves every test here.
    return write_users(tmp_path_factory.mktemp("users") / "users.json")


@asynccontextmanager
async def console(tmp_path: Path, users: Path, session_seconds: int = 3600) -> AsyncIterator[str]:
    address = TableAddress(
        table="T01",
        stream=f"ipc://{tmp_path}/res",
        replay=f"ipc://{tmp_path}/rep",
        commands=f"ipc://{tmp_path}/cmd",
        server_key=KeyPair.generate().public,
    )
    settings = ConsoleSettings(
        journal=tmp_path / "journal.jsonl",
        command_timeout=0.3,
        link_timeout=0.1,
        session_seconds=session_seconds,
    )
    server = ConsoleServer([address], KeyPair.generate(), UserDirectory(users), SECRET, settings)
    test_server = test_utils.TestServer(server.app(), host="127.0.0.1")
    await test_server.start_server()
    try:
        yield str(test_server.make_url("")).rstrip("/")
    finally:
        await test_server.close()


def _client() -> aiohttp.ClientSession:
    # The default cookie jar ignores cookies from an IP address such as 127.0.0.1.
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def _sign_in(http: aiohttp.ClientSession, url: str, name: str, password: str) -> int:
    async with http.post(
        f"{url}/signin", data={"name": name, "password": password}, allow_redirects=False
    ) as reply:
        return reply.status


async def _csrf(http: aiohttp.ClientSession, url: str) -> str:
    async with http.get(f"{url}/table/T01") as reply:
        found = re.search(r"data-csrf='([^']+)'", await reply.text())
    assert found is not None
    return found.group(1)


async def _nonce(http: aiohttp.ClientSession, url: str) -> str:
    async with http.get(f"{url}/api/nonce") as reply:
        nonce: str = (await reply.json())["nonce"]
        return nonce


def test_wrong_passwords_are_refused_then_rate_limited(tmp_path: Path, users: Path) -> None:
    async def scenario() -> None:
        async with console(tmp_path, users) as url, _client() as http:
            for _ in range(5):
                assert await _sign_in(http, url, "alice", "wrong-password") == 401
            # The sixth attempt is refused before the password is even checked, right or wrong.
            async with http.post(
                f"{url}/signin", data={"name": "alice", "password": PASSWORDS["alice"]}
            ) as reply:
                assert reply.status == 429
                assert "Too many sign-in attempts" in await reply.text()
            assert await _sign_in(http, url, "nobody", "whatever-it-is") == 429  # same address

    asyncio.run(scenario())


def test_a_session_cookie_is_httponly_samesite_and_expires(tmp_path: Path, users: Path) -> None:
    async def scenario() -> None:
        async with console(tmp_path, users) as url, _client() as http:
            async with http.post(
                f"{url}/signin",
                data={"name": "alice", "password": PASSWORDS["alice"]},
                allow_redirects=False,
            ) as reply:
                assert reply.status == 303
                header = reply.headers["Set-Cookie"]
            assert "HttpOnly" in header and "SameSite=Strict" in header
            # A cookie signed with the right secret ten hours ago: expired.
            old = URLSafeTimedSerializer(
                SECRET, salt="studio-console-session", signer=_SignedLongAgo
            ).dumps({"name": "alice", "role": "shift_manager", "csrf": "x", "expires": 0})
            async with aiohttp.ClientSession(cookies={COOKIE: old}) as stale:
                async with stale.get(f"{url}/", allow_redirects=False) as reply:
                    assert reply.status == 303
                    assert "why=expired" in reply.headers["Location"]
                async with stale.get(f"{url}/signin?why=expired") as reply:
                    assert "Your session has expired" in await reply.text()
            forged = old[:-4] + ("AAAA" if not old.endswith("AAAA") else "BBBB")
            async with (
                aiohttp.ClientSession(cookies={COOKIE: forged}) as fake,
                fake.get(f"{url}/api/nonce") as reply,
            ):
                assert reply.status == 401
                assert (await reply.json())["reason"] == "your session is not valid: sign in again"

    asyncio.run(scenario())


class _SignedLongAgo(TimestampSigner):
    def get_timestamp(self) -> int:
        return int(time.time()) - 10 * 3600


def test_cross_site_replayed_and_tokenless_actions_are_refused(tmp_path: Path, users: Path) -> None:
    async def scenario() -> None:
        async with console(tmp_path, users) as url, _client() as http:
            assert await _sign_in(http, url, "alice", PASSWORDS["alice"]) == 303
            csrf = await _csrf(http, url)
            command = f"{url}/table/T01/command"

            async def post(body: dict[str, Any], **headers: str) -> tuple[int, str]:
                async with http.post(command, json=body, headers=headers) as reply:
                    return reply.status, (await reply.json())["reason"]

            nonce = await _nonce(http, url)
            assert await post(
                {"action": "resume", "csrf": csrf, "nonce": nonce}, Origin="http://evil.example"
            ) == (403, "cross-site request refused")
            assert await post(
                {"action": "resume", "csrf": csrf, "nonce": nonce},
                **{"Sec-Fetch-Site": "cross-site"},
            ) == (403, "cross-site request refused")
            assert await post({"action": "resume", "nonce": nonce}) == (
                403,
                "missing or wrong CSRF token",
            )
            # A good request goes through the checks once (no table answers here)...
            status, reason = await post({"action": "resume", "csrf": csrf, "nonce": nonce})
            assert status == 200 and "table unreachable" in reason
            # ...and the same request sent again is refused.
            assert (await post({"action": "resume", "csrf": csrf, "nonce": nonce}))[0] == 409
            nonce = await _nonce(http, url)
            assert await post({"action": "void", "csrf": csrf, "nonce": nonce, "note": " "}) == (
                400,
                "a void needs a reason",
            )
            nonce = await _nonce(http, url)
            assert await post({"action": "explode", "csrf": csrf, "nonce": nonce}) == (
                400,
                "unknown action 'explode'",
            )
            async with http.post(
                f"{url}/signin",
                data={"name": "alice", "password": PASSWORDS["alice"]},
                headers={"Origin": "http://evil.example"},
            ) as reply:
                assert reply.status == 403

    asyncio.run(scenario())


def test_an_observer_cannot_acknowledge_and_signed_out_requests_are_refused(
    tmp_path: Path, users: Path
) -> None:
    async def scenario() -> None:
        async with console(tmp_path, users) as url, _client() as http:
            async with http.post(f"{url}/table/T01/command", json={"action": "void"}) as reply:
                assert reply.status == 401
            assert await _sign_in(http, url, "olga", PASSWORDS["olga"]) == 303
            csrf = await _csrf(http, url)
            nonce = await _nonce(http, url)
            async with http.post(
                f"{url}/table/T01/acknowledge", json={"csrf": csrf, "nonce": nonce}
            ) as reply:
                assert reply.status == 403
                assert (await reply.json())[
                    "reason"
                ] == "role observer may not acknowledge an alarm"

    asyncio.run(scenario())


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil"])
def test_sign_in_never_sends_a_person_to_another_site(
    tmp_path: Path, users: Path, target: str
) -> None:
    async def scenario() -> None:
        async with (
            console(tmp_path, users) as url,
            _client() as http,
            http.post(
                f"{url}/signin",
                data={"name": "alice", "password": PASSWORDS["alice"], "next": target},
                allow_redirects=False,
            ) as reply,
        ):
            assert reply.headers["Location"] == "/"

    asyncio.run(scenario())


def test_a_live_screen_is_closed_when_its_session_ends(tmp_path: Path, users: Path) -> None:
    async def scenario() -> None:
        async with console(tmp_path, users, session_seconds=1) as url, _client() as http:
            assert await _sign_in(http, url, "alice", PASSWORDS["alice"]) == 303
            async with http.ws_connect(f"{url}/ws/console") as ws:
                first = await ws.receive(timeout=5)
                assert first.type == aiohttp.WSMsgType.TEXT
                for _ in range(30):  # pushed once a second: bounded, should it never close
                    message = await ws.receive(timeout=10)
                    if message.type != aiohttp.WSMsgType.TEXT:
                        break
                assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                assert ws.close_code == 1008  # policy violation: the session ended
            async with http.get(f"{url}/api/nonce") as reply:
                assert reply.status == 401

    asyncio.run(scenario())


def test_a_cross_site_websocket_is_refused(tmp_path: Path, users: Path) -> None:
    async def scenario() -> None:
        async with console(tmp_path, users) as url, _client() as http:
            assert await _sign_in(http, url, "alice", PASSWORDS["alice"]) == 303
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(
                    f"{url}/ws/console", headers={"Origin": "http://evil.example"}
                )
            assert refused.value.status == 403

    asyncio.run(scenario())
