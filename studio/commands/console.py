"""`studio console [--table T ...] [--port P]`: the dealer display and shift manager's console.

With no `--table` it serves every table `studio run` started on this machine (their run files;
with none, the default endpoints, as every client finds a table); `--table` may be given several
times. It connects with the console key (`console.key_secret` in the table's key directory,
made by `studio run` and listed with the `console` role), signs people in against the user file
of `studio users add`, prints `console: open http://HOST:PORT` and serves until Ctrl-C or
SIGTERM. `--proxy E` follows the tables' public streams through a `studio proxy` frontend
instead of each table's restricted stream (views and commands still go to each table).
`--webhook URL` sends each new incident as JSON; a fault still unresolved is sent again
every `--escalate-seconds`. A bad key, user file or port in use ends as one line, exit status 2.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.commands.users import default_users_file
from studio.errors import ConfigurationError, KeyFileError
from studio.paths import data_dir

if TYPE_CHECKING:
    from studio.console.web import ConsoleServer


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `console` command to the `studio` parser."""
    parser = subparsers.add_parser("console", help="serve the dealer display and manager console")
    parser.add_argument(
        "--table", action="append", help="a table id (repeatable; default: the one running here)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=7780, help="port to listen on (0: any)")
    parser.add_argument("--key", type=Path, help="the console's key (default: console.key_secret)")
    parser.add_argument("--users", type=Path, help="the user file (default: data dir)")
    parser.add_argument(
        "--proxy", metavar="E", help="follow the tables' public streams through `studio proxy` at E"
    )
    parser.add_argument("--webhook", help="POST each new incident as JSON to this URL")
    parser.add_argument(
        "--escalate-seconds", type=float, default=300.0, help="re-send an unresolved fault after"
    )
    parser.add_argument("--session-minutes", type=int, default=480, help="how long a sign-in lasts")
    parser.set_defaults(run=run)


def running_tables() -> list[str]:
    """The ids of the tables `studio run` runs on this machine now (their live run files)."""
    from studio.runtime import read_run_file, run_dir

    found = []
    for path in sorted(run_dir().glob("*.json")):
        try:
            run_file = read_run_file(path)
        except ConfigurationError:
            continue  # a damaged run file is `studio status`'s to report; skip it here
        if run_file.alive():
            found.append(run_file.table)
    return found


def _secret(folder: Path) -> bytes:
    """The console's session-signing secret, made once (sessions survive a restart)."""
    path = folder / "session.secret"
    try:
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(secrets.token_bytes(32))
        return path.read_bytes()
    except OSError as err:
        raise ConfigurationError(f"cannot keep the console's secret in {path}: {err}") from err


def run(args: argparse.Namespace) -> int:
    """Serve the console until stopped; return 0. Raises StudioError (exit 2) on bad setup."""
    # Imported here: the web server is heavy, and `studio console --help` needs none of it.
    import asyncio

    from studio.bus.keys import KeyPair
    from studio.commands.locate import locate
    from studio.console.link import TableAddress
    from studio.console.users import UserDirectory, read_users
    from studio.console.web import ConsoleServer, ConsoleSettings

    if not 0 <= args.port <= 65535:
        raise ConfigurationError(f"--port must be 0..65535, got {args.port}")
    if args.session_minutes < 1 or args.escalate_seconds <= 0:
        raise ConfigurationError("--session-minutes and --escalate-seconds must be positive")
    tables: list[str | None] = list(args.table or running_tables() or [None])
    addresses: list[TableAddress] = []
    key_file: Path | None = args.key
    for table in tables:
        where = locate(table)
        addresses.append(
            TableAddress(
                table=where.table,
                stream=args.proxy or where.restricted,
                replay=where.replay,
                commands=where.commands,
                server_key=KeyPair.load(where.server_key).public,
                public_stream=args.proxy is not None,
            )
        )
        key_file = key_file or where.keys_dir / "console.key_secret"
    assert key_file is not None
    try:
        keys = KeyPair.load(key_file)
    except KeyFileError as err:
        raise KeyFileError(f"{err}: start the table once with `studio run`, or pass --key") from err
    keys.require_secret()
    folder = data_dir() / "console"
    users_file: Path = args.users or default_users_file()
    users = UserDirectory(users_file)
    if not read_users(users_file).users:
        print(f"nobody may sign in yet: add people with `studio users add` ({users_file})")
    settings = ConsoleSettings(
        session_seconds=args.session_minutes * 60,
        webhook=args.webhook,
        escalate_seconds=args.escalate_seconds,
        journal=folder / "journal.jsonl",
    )
    server = ConsoleServer(addresses, keys, users, _secret(folder), settings)
    return asyncio.run(_serve(server, args.host, args.port))


async def _serve(server: ConsoleServer, host: str, port: int) -> int:
    import asyncio

    from aiohttp import web

    runner = web.AppRunner(server.app(), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as err:
            raise ConfigurationError(f"cannot listen on {host}:{port}: {err.strerror}") from err
        bound = port
        if runner.addresses:
            bound = runner.addresses[0][1]
        tables = ", ".join(server.addresses)
        print(f"console for table {tables}: open http://{host}:{bound}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()
    return 0
