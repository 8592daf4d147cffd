"""A synthetic camera: card faces, backs, table scenes and calibration targets drawn with OpenCV.

Nothing here reads an image file, so tests and the simulated table run anywhere. At least two card
designs (`DESIGNS`) with different lettering and index sizes keep the recognizer honest.
"""
