"""Whether a word is common English (word frequencies), and how near two name words are in spelling and sound.

Pure functions over strings; the libraries behind them load on first use, only when the de-id gate has a
candidate to ask about (a word near a customer's name), never for a statement with none.
"""

from __future__ import annotations

import functools

# A word at or above this Zipf frequency (wordfreq: 3 is once per million words) is common English: "harbor",
# "summit", "flask", "dana" are; "kestrel" (2.5), "pellucid" (1.6) and made-up names (0) are not.
COMMON_ZIPF = 3.0


@functools.lru_cache(maxsize=4096)
def zipf(word: str) -> float:
    """The word's Zipf frequency in English (wordfreq); 0.0 when wordfreq is missing: then no word is common and
    the gate matches more, never less."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return 0.0
    return zipf_frequency(word.casefold(), "en")


def common(word: str) -> bool:
    return zipf(word) >= COMMON_ZIPF
