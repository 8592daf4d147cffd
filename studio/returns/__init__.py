"""Returns to player of every bet, by exact enumeration (or simulation where stated)."""
