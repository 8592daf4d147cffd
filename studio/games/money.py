"""Money in settlement: exact amounts as `Fraction`s of whole cents, rounded down when paid.

Scalar settlement keeps amounts exact; the vectorised one (`studio.games.batch`) works in int64
cents. Both round every amount returned *down* to the cent, so they agree to the cent and the
player is never paid more than the exact figure.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from studio.errors import InputError


def floor_cents(amount: Fraction) -> Fraction:
    """`amount` rounded down to a whole number of cents."""
    return Fraction(math.floor(amount * 100), 100)


def whole_cents(amount: Fraction) -> bool:
    """Whether `amount` is a whole number of cents."""
    return (amount * 100).denominator == 1


def money_json(amount: Fraction) -> int | float:
    """An amount for JSON: an int when whole, else a float of its cents (2.5, 0.15)."""
    if amount.denominator == 1:
        return int(amount)
    return round(float(amount), 2)


def money_text(amount: Fraction) -> str:
    """An amount for messages: "10" or "2.50"."""
    return str(int(amount)) if amount.denominator == 1 else f"{float(amount):.2f}"


def parse_amount(value: str | int | float, what: str = "amount") -> Fraction:
    """An amount from text or a JSON number ("10", "2.50", 2.5) as an exact `Fraction`.

    Floats are read through their shortest decimal form, so 0.1 is one tenth. Raises
    `InputError` naming `what` for text that is not a finite decimal number (or a boolean).
    """
    if isinstance(value, bool):
        raise InputError(f"{what} must be a number, got {value!r}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise InputError(f"{what} must be a number, got {value!r}") from None
    if not number.is_finite():
        raise InputError(f"{what} must be a finite number, got {value!r}")
    return Fraction(number)
