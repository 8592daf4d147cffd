"""CURVE encryption and ZAP authentication for the bus's server and client sockets.

A CURVE server socket with no ZAP handler accepts every client key (measured), so a server socket
is only made CURVE through `KeyGuard.secure`, which starts the ZAP handler first. Each guarded
socket names a ZAP domain; the domain's rule decides, from the key's allow-list entry as the file
says at handshake time, whether the handshake succeeds. The handshake's User-Id is the client's
z85 public key, which the command channel looks up again for every message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

import zmq
from zmq.auth.thread import ThreadAuthenticator

from studio.bus.keys import AllowedKey, AllowList, KeyPair
from studio.closing import Closing

log = logging.getLogger(__name__)

DomainRule = Callable[[AllowedKey], bool]
"""Whether a listed key may complete a handshake in one ZAP domain."""


def any_listed(entry: AllowedKey) -> bool:
    """The rule that admits every key on the allow-list, whatever its role."""
    return True


class _DomainProvider:
    """The credentials provider pyzmq's authenticator calls (from its thread) per handshake."""

    def __init__(self, allow_list: AllowList, rule: DomainRule) -> None:
        self._allow_list = allow_list
        self._rule = rule

    def callback(self, domain: str, key: bytes) -> bool:
        """Whether `key` may complete a handshake in `domain`; any failure refuses it."""
        try:
            entry = self._allow_list.lookup(key)
            allowed = entry is not None and self._rule(entry)
        except Exception:
            # An exception here would end the authenticator's thread, and with it every later
            # handshake on the table's secured sockets (and a clean stop). Fail closed instead.
            log.exception(
                "ZAP %s: refused key %s: the check failed", domain, key.decode("ascii", "replace")
            )
            return False
        if not allowed:
            log.warning("ZAP %s: refused key %s", domain, key.decode("ascii", "replace"))
        return allowed


class KeyGuard(Closing):
    """A ZAP handler for one zmq context, admitting allow-listed keys by domain.

    `KeyGuard(context, allow_list, {"restricted": rule, ...})` starts the handler thread. Use it as
    a context manager; `close()` (idempotent) stops the thread. Close it before terminating the
    context.
    """

    def __init__(
        self,
        context: zmq.Context[zmq.Socket[bytes]],
        allow_list: AllowList,
        domains: Mapping[str, DomainRule],
    ) -> None:
        """Start authenticating handshakes in `domains` against `allow_list`."""
        self._auth: ThreadAuthenticator | None = ThreadAuthenticator(context)
        self._auth.start()
        for domain, rule in domains.items():
            self._auth.configure_curve_callback(domain, _DomainProvider(allow_list, rule))
        self.allow_list = allow_list

    def secure(self, socket: zmq.Socket[bytes], server_keys: KeyPair, domain: str) -> None:
        """Make `socket` a CURVE server authenticated in `domain`; call it before `bind`."""
        if self._auth is None:
            raise RuntimeError("the key guard is closed")
        socket.zap_domain = domain.encode("ascii")
        socket.curve_secretkey = server_keys.require_secret()
        socket.curve_publickey = server_keys.public
        socket.curve_server = True

    def close(self) -> None:
        """Stop the ZAP handler; later handshakes on guarded sockets fail."""
        if self._auth is not None:
            self._auth.stop()
            self._auth = None


def secure_client(socket: zmq.Socket[bytes], client_keys: KeyPair, server_public: bytes) -> None:
    """Make `socket` a CURVE client of the server whose public key is `server_public`."""
    socket.curve_secretkey = client_keys.require_secret()
    socket.curve_publickey = client_keys.public
    socket.curve_serverkey = server_public


class ServerSecurity:
    """What a CURVE server needs: its own key pair and the allow-list of client keys."""

    def __init__(self, server_keys: KeyPair, allow_list: AllowList) -> None:
        """Check that `server_keys` has its secret half; raises KeyFileError otherwise."""
        server_keys.require_secret()
        self.server_keys = server_keys
        self.allow_list = allow_list

    def guard(
        self, context: zmq.Context[zmq.Socket[bytes]], domains: Mapping[str, DomainRule]
    ) -> KeyGuard:
        """Start a ZAP handler on `context` for `domains`; the caller closes it."""
        return KeyGuard(context, self.allow_list, domains)


def user_id(frame: zmq.Frame) -> str | None:
    """The authenticated User-Id (the client's z85 public key) a received frame carries, if any.

    Frames must be received with `copy=False` to keep their metadata. A frame from a socket
    without CURVE has no User-Id; that is None, never an empty string that could match a key.
    """
    try:
        value = frame.get("User-Id")
    except zmq.ZMQError:
        return None
    return value if isinstance(value, str) and value else None
