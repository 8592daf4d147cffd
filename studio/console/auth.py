"""Who is signed in to the console, and whether a request may act: sessions, CSRF, rate limits.

- A session is a cookie signed with the console's secret (itsdangerous, timestamped), HttpOnly,
  SameSite=Strict; it names the person, their role and the session's CSRF token, and expires
  `max_age` seconds after sign-in.
- Every action (a POST) must carry that CSRF token and a one-time nonce, and must not come from
  another site (an `Origin` header naming another origin is refused): a page on another site
  cannot act for a signed-in person, and a request captured once cannot be sent again.
- Sign-in attempts are limited per client address and per name (`SignInLimiter`): after
  `attempts` failures within `window` seconds, further attempts are refused until the oldest
  failure leaves the window.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from dataclasses import dataclass, field

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from pydantic import BaseModel, ConfigDict, ValidationError

from studio.messages import Role

COOKIE = "studio_console"
"""The session cookie's name."""

_SALT = "studio-console-session"


class Session(BaseModel):
    """A signed-in person: name, role, the CSRF token every action must carry, and its end.

    `expires` is in UNIX seconds: live screens are closed then, as the cookie stops working.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    role: Role
    csrf: str
    expires: float


@dataclass(frozen=True)
class SessionCheck:
    """The result of reading a session cookie: the session, or why there is none."""

    session: Session | None
    problem: str | None = None


class SessionCodec:
    """Signs and reads session cookies with `secret`; sessions last `max_age` seconds."""

    def __init__(self, secret: bytes, max_age: int) -> None:
        """Sign with `secret` (at least 32 random bytes)."""
        self._serializer = URLSafeTimedSerializer(secret, salt=_SALT)
        self.max_age = max_age

    def issue(self, name: str, role: Role) -> tuple[str, Session]:
        """A new session for `name` and its cookie value."""
        expires = time.time() + self.max_age
        session = Session(name=name, role=role, csrf=secrets.token_urlsafe(24), expires=expires)
        return self._serializer.dumps(session.model_dump()), session

    def read(self, cookie: str | None) -> SessionCheck:
        """The session a cookie holds; an expired or forged one is none, with the reason."""
        if not cookie:
            return SessionCheck(None)
        try:
            data = self._serializer.loads(cookie, max_age=self.max_age)
            return SessionCheck(Session.model_validate(data))
        except SignatureExpired:
            return SessionCheck(None, "your session has expired: sign in again")
        except (BadSignature, ValidationError):
            return SessionCheck(None, "your session is not valid: sign in again")


@dataclass
class NonceBook:
    """One-time action nonces: issued to a session, spent once, forgotten after `ttl` seconds."""

    ttl: float = 600.0
    _issued: dict[str, tuple[str, float]] = field(default_factory=dict)

    def issue(self, session: Session, now: float) -> str:
        """A fresh nonce for `session`."""
        self._expire(now)
        nonce = secrets.token_urlsafe(18)
        self._issued[nonce] = (session.csrf, now)
        return nonce

    def spend(self, nonce: str, session: Session, now: float) -> bool:
        """Whether `nonce` was issued to `session` and not yet spent (it is spent now)."""
        self._expire(now)
        held = self._issued.pop(nonce, None)
        return held is not None and secrets.compare_digest(held[0], session.csrf)

    def _expire(self, now: float) -> None:
        self._issued = {k: v for k, v in self._issued.items() if now - v[1] < self.ttl}


@dataclass
class SignInLimiter:
    """Refuses sign-in attempts after `attempts` failures within `window` s (per key)."""

    attempts: int = 5
    window: float = 300.0
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    def wait(self, keys: tuple[str, ...], now: float) -> float:
        """Seconds until any of `keys` may try again (0: now)."""
        longest = 0.0
        for key in keys:
            failures = self._failures.get(key)
            if failures is None:
                continue
            while failures and now - failures[0] >= self.window:
                failures.popleft()
            if len(failures) >= self.attempts:
                longest = max(longest, self.window - (now - failures[0]))
        return longest

    def failed(self, keys: tuple[str, ...], now: float) -> None:
        """Record one failed attempt for each of `keys`."""
        for key in keys:
            self._failures.setdefault(key, deque()).append(now)

    def succeeded(self, keys: tuple[str, ...]) -> None:
        """Forget the failures of `keys` after a good sign-in."""
        for key in keys:
            self._failures.pop(key, None)


def monotonic() -> float:
    """The clock the console gives the limiter and nonce book (a function, so tests can step)."""
    return time.monotonic()
