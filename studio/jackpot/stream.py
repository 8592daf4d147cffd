"""The current pool on a ZeroMQ PUB socket for the overlays: `jackpot` topic, one JSON frame.

Each message is `[b"jackpot", {"pool": ID, "amount": MINOR_UNITS, "text": "1234.56"}]`, sent
every `every` seconds from the database's amount (so a change shows within one tick and a late
overlay needs no request).
The socket binds loopback or ipc only (the configuration refuses anything else).
"""

from __future__ import annotations

import json
import threading
from fractions import Fraction

import psycopg
import zmq

from studio.archive.store import Conn
from studio.bus.endpoints import bind
from studio.games.money import money_text
from studio.jackpot.pool import current

TOPIC = b"jackpot"


def frame(pool_id: str, amount: int) -> bytes:
    """The JSON frame that announces `amount` minor units in pool `pool_id`."""
    text = money_text(Fraction(amount, 100)).strip()
    return json.dumps({"pool": pool_id, "amount": amount, "text": text}).encode()


def publish_pool(
    dsn: str, pool_id: str, endpoint: str, stop: threading.Event, every: float = 1.0
) -> None:
    """Publish pool `pool_id`'s amount on `endpoint` until `stop` is set.

    The database is polled every `every` seconds; a lost connection is retried on the next tick
    (the last amount stays announced meanwhile). InputError when the pool does not exist.
    """
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
    socket = context.socket(zmq.PUB)
    socket.setsockopt(zmq.LINGER, 0)
    claim = bind(socket, endpoint)
    conn: Conn | None = None
    try:
        while not stop.is_set():
            try:
                if conn is None or conn.closed:
                    conn = psycopg.connect(dsn, autocommit=True)
                socket.send_multipart([TOPIC, frame(pool_id, current(conn, pool_id))])
            except psycopg.OperationalError:
                conn = None  # PostgreSQL away: try again next tick
            stop.wait(every)
    finally:
        if conn is not None:
            conn.close()
        socket.close()
        claim.close()
