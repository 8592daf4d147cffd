"""`studio jackpot` and `studio settle --jackpot-dsn` against a real PostgreSQL and real sockets."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import zmq
from postgres_support import Cluster

from studio.cli import main
from studio.errors import ConfigurationError
from studio.jackpot.config import load_jackpot_config
from studio.jackpot.stream import TOPIC, publish_pool


@pytest.fixture
def dsn(cluster: Cluster) -> Iterator[str]:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    yield cluster.dsn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(tmp_path: Path, port: int = 7720) -> Path:
    path = tmp_path / "jackpot.toml"
    path.write_text(
        '[jackpot]\npool = "studio"\nseed = "10000.00"\nrate = "1/5"\n'
        f'publish = "tcp://127.0.0.1:{port}"\npublish_seconds = 0.05\n'
    )
    return path


def studio(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_posts_count_once_and_two_royals_share_the_pool(
    dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(write_config(tmp_path))
    base = ["jackpot", "--dsn", dsn, "--config", config]
    assert studio(capsys, *base, "open") == "jackpot studio: 10000\n"
    rounds = [("T01-1", "T01", "1.00", True), ("T02-1", "T02", "3.00", True)]
    rounds.append(("T03-1", "T03", "6.00", False))
    for game, table, amount, royal in rounds:
        extra = ["--royal"] if royal else []
        args = ["post", "--game-number", game, "--table", table, "--window", "7"]
        studio(capsys, *base, *args, "--bets", "1", "--amount", amount, *extra)
    retry = ["post", "--game-number", "T03-1", "--table", "T03", "--window", "7"]
    out = studio(capsys, *base, *retry, "--bets", "1", "--amount", "6.00")
    assert "already posted (counted once)" in out
    assert out.endswith("jackpot studio: 10002\n")  # 20% of the 10.00 bet, counted once
    # Settlement asks the pool: the T02 royal's 3.00 of the window's 10.00 claims 30% of it.
    settle = ["settle", "--game", "caribbean-stud", "--player", "AS KS QS JS TS"]
    settle += ["--dealer", "2C 3D 5H 8S 9C", "--bet", "ante=5", "--bet", "jackpot=3"]
    settle += ["--decision", "call", "--jackpot-dsn", dsn, "--jackpot-window", "7"]
    result = json.loads(studio(capsys, *settle, "--jackpot-config", config, "--json"))
    assert result["bets"]["jackpot"]["share"] == 3000.6
    out = studio(capsys, *base, "close", "--window", "7")
    assert out == "T01-1: 1000.20\nT02-1: 3000.60\njackpot studio: 16001.20\n"
    assert studio(capsys, *base, "close", "--window", "7").endswith("jackpot studio: 16001.20\n")


def test_settle_refuses_both_the_pool_and_its_answer(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["settle", "--game", "caribbean-stud", "--player", "AS KS QS JS TS"]
    argv += ["--dealer", "2C 3D 5H 8S 9C", "--bet", "jackpot=1", "--jackpot-pool", "10"]
    assert main([*argv, "--jackpot-dsn", dsn, "--jackpot-window", "1"]) == 2
    assert "give neither" in capsys.readouterr().err


def test_the_overlay_stream_carries_the_pool_as_it_grows(
    dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    config_path = write_config(tmp_path, port)
    config = load_jackpot_config(config_path)
    base = ["jackpot", "--dsn", dsn, "--config", str(config_path)]
    studio(capsys, *base, "open")
    stop = threading.Event()
    server = threading.Thread(
        target=publish_pool, args=(dsn, config.pool, config.publish, stop, 0.05)
    )
    server.start()
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, TOPIC)
    sub.setsockopt(zmq.RCVTIMEO, 10_000)
    sub.connect(config.publish)
    try:
        topic, body = sub.recv_multipart()
        assert topic == TOPIC
        assert json.loads(body) == {"pool": "studio", "amount": 1_000_000, "text": "10000"}
        post = ["post", "--game-number", "T01-9", "--table", "T01", "--window", "1"]
        studio(capsys, *base, *post, "--bets", "2", "--amount", "50.00")
        while (seen := json.loads(sub.recv_multipart()[1]))["amount"] == 1_000_000:
            pass
        assert seen == {"pool": "studio", "amount": 1_001_000, "text": "10010"}
    finally:
        stop.set()
        server.join()
        sub.close()
        ctx.term()


def test_a_bad_configuration_names_its_key(tmp_path: Path) -> None:
    path = tmp_path / "j.toml"
    path.write_text('[jackpot]\nrate = "3/2"\n')
    with pytest.raises(ConfigurationError, match=r"jackpot\.rate: the rate must be from 0 to 1"):
        load_jackpot_config(path)
    path.write_text('[jackpot]\npublish = "tcp://0.0.0.0:7720"\n')
    with pytest.raises(ConfigurationError, match="loopback"):
        load_jackpot_config(path)
    path.write_text('[jackpot]\nseeds = "1"\n')
    with pytest.raises(ConfigurationError, match="seeds"):
        load_jackpot_config(path)
