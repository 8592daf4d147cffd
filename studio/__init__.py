"""The table controller for live Caribbean Stud Poker and Ultimate Texas Hold'em."""

__version__ = "0.1.0"
