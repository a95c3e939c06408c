"""Harvest: what a person told an agent, read from session transcripts and personal notes (SPEC 16)."""
