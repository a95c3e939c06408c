"""Deterministic gates: de-identification and the publish gates."""
