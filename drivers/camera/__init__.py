"""The camera driver: frame sources, card recognition and a synthetic frame renderer.

`drivers.camera.recognizer.CardRecognizer` turns one BGR frame into card readings using a
calibration profile; `drivers.camera.sources` opens frame sources by a configuration string;
`drivers.camera.synthetic` draws table frames with known ground truth for tests and the simulator.
"""
