"""The derived local search index (a cache; git is the source of truth)."""
