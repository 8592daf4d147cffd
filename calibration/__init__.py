"""Camera calibration: lens, table geometry and deck templates for the card recognizer."""
