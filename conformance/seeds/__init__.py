"""The seed differential (issue 8 §2): per seed, a plugin that builds the unmodified seed and
drives it beside impl, each log checked against the model (`wave.py`: transport.ts)."""
