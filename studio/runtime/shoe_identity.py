"""The framed shoe's own word on who it is, held to the configured pin (`[shoe] identity`).

A framed shoe names itself in the RESET frame that opens each of its sessions. With a pin, a
reading from a session whose shoe named another identity, or none, is no card: it is neither
applied nor acknowledged, and the table has a device fault that says why (once while the shoe's
health is not already faulted). Limit: a session the table joined without its RESET (the table
restarted while the shoe kept running) is unidentified until the shoe restarts.
"""

from __future__ import annotations

from drivers.shoe.readings import Receipt, ShoeReset


class IdentityGate:
    """Which sessions of the shoe named the pinned identity (loop thread only)."""

    def __init__(self, pin: str | None) -> None:
        self.pin = pin
        self._named: dict[int, str | None] = {}

    def saw(self, item: object) -> None:
        """Note the identity a RESET frame reports for its session."""
        if isinstance(item, ShoeReset) and item.session is not None:
            self._named[item.session] = item.identity

    def problem(self, receipt: Receipt | None) -> str | None:
        """Why a delivery from the line is not from the pinned shoe (None: it is, or no pin)."""
        if self.pin is None or receipt is None:
            return None
        named = self._named.get(receipt.session)
        if named == self.pin:
            return None
        if named is None:
            return (
                f"the shoe on the line has not said who it is (session {receipt.session}); "
                f"the pinned shoe is {self.pin!r}: restart it so it announces itself"
            )
        return f"the shoe on the line says it is {named!r}, not the pinned {self.pin!r}"
