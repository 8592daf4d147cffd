"""Which faults a simulated table injects, how often, and the incident each one must cause.

Rates are probabilities per opportunity: `duplicate`, `unreadable` and `mismatch` per card the
dealer draws (at most one of them per draw; a duplicate needs a card already on the table,
`mismatch` a camera), `device` per card before it is drawn (the shoe, or on a table with a
camera either device, reports a fault), and `out-of-turn` per decision window (the dealer draws
a card while it is open) and, on a table with a camera, per stage's last card (one card too many
drawn before the camera confirmed the last one: "after the last card").
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from studio.errors import InputError

INCIDENT_OF: dict[str, str] = {
    "duplicate": "duplicate_card",
    "unreadable": "unreadable_card",
    "out-of-turn": "card_out_of_turn",
    "mismatch": "camera_mismatch",
    "device": "device_fault",
}
"""The incident kind each injected fault must produce, and nothing else may."""


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Probabilities of each injected fault (see the module docstring); all zero by default."""

    duplicate: float = 0.0
    unreadable: float = 0.0
    out_of_turn: float = 0.0
    mismatch: float = 0.0
    device: float = 0.0

    def __post_init__(self) -> None:
        for spec in fields(self):
            rate = getattr(self, spec.name)
            if not 0.0 <= rate <= 1.0:
                raise InputError(f"fault rate {spec.name}={rate} is outside 0..1")
        if self.duplicate + self.unreadable + self.mismatch > 1.0:
            raise InputError("duplicate + unreadable + mismatch rates exceed 1 (one per draw)")

    @classmethod
    def parse(cls, text: str) -> FaultRates:
        """Read `duplicate=0.02,unreadable=0.02,out-of-turn=0.01,...` (any subset, any order).

        Raises `InputError` naming an unknown fault, a malformed item or a rate outside 0..1.
        """
        rates: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, value = item.partition("=")
            name = name.strip()
            if not sep or name not in INCIDENT_OF:
                raise InputError(
                    f"bad fault {item!r} (expected NAME=RATE with NAME one of "
                    f"{', '.join(INCIDENT_OF)})"
                )
            try:
                rates[name.replace("-", "_")] = float(value)
            except ValueError:
                raise InputError(f"bad fault rate {value!r} for {name}") from None
        return cls(**rates)

    @property
    def any(self) -> bool:
        """Whether any fault may be injected at all."""
        return any(getattr(self, spec.name) > 0 for spec in fields(self))


NO_FAULTS = FaultRates()
"""A table where nothing ever goes wrong."""
