"""Quieting pyserial's RFC 2217 reader thread when a device server drops the line.

pyserial's RFC 2217 client runs its own reader thread, which dies with a traceback when a device
server accepts a connection and then drops it (its serial port is gone, mid-replug). The
`SerialShoe` sees the closed line and reports it as an unplugged shoe; the traceback on stderr
would only alarm a dealer or an operator reading the table's log.
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)

_READER_THREAD = "pySerial RFC 2217 reader thread"
_installing = threading.Lock()


def quiet_rfc2217_reader_threads() -> None:
    """Log (info) instead of printing the death of pyserial's RFC 2217 reader threads; idempotent.

    Every other thread's uncaught exception still reaches the hook installed before this one.
    """
    with _installing:
        previous = threading.excepthook
        if getattr(previous, "quiets_rfc2217", False):
            return

        def hook(args: threading.ExceptHookArgs) -> None:
            name = args.thread.name if args.thread is not None else ""
            if name.startswith(_READER_THREAD):
                log.info("pyserial RFC 2217 thread ended: %r", args.exc_value)
                return
            previous(args)

        hook.quiets_rfc2217 = True  # type: ignore[attr-defined]
        threading.excepthook = hook
