"""Credentials out of harvested text before anything is shown, stored or committed (SPEC 16).

Yelp's detect-secrets finds them: its provider detectors (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, npm, PyPI,
JWTs, private keys, ...), basic-auth credentials in URLs (connection strings), its keyword detector (read as a
YAML file, the mode that also catches `password=…` outside quotes) and its high-entropy string detectors at their
default limits. Its keyword detector is written for source code; people write credentials in prose too ("the
staging password is hunter2", "api key: …"), so one rule more reads a credential word followed by "is", ":" or
"=" and a value. Every finding redacts the whole word it sits in (a detector may report only a prefix, as the
GitHub one reports "ghp"), so nothing of the credential is left.
"""

from __future__ import annotations

import re

REDACTED = "[redacted {}]"
_PROSE = re.compile(
    r"\b(?P<word>pass(?:word|wd|phrase)?|pwd|secret|client[ _-]?secret|token|api[ _-]?key|apikey|access[ _-]?key|"
    r"secret[ _-]?key|private[ _-]?key|auth(?:orization)?|bearer|credentials?|login)s?\b"
    r"(?:\s+(?:for|of|on|to)\s+[\w.@/-]+)?(?:\s+(?:is|was|are|=|:)|\s*[:=])\s*(?:now\s+)?"
    r"(?P<value>['\"]?[^\s'\"]{4,}['\"]?)", re.I)
# a URL's userinfo (RFC 3986: scheme://user:password@host): detect-secrets' basic-auth pattern leaves out some of
# the characters a password may hold
_USERINFO = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<value>[^\s@/]+)@", re.I)
_WORD_EDGE = " \t\n\r'\"`<>()[]{},;"
# after "password is" / "keys are": grammar, not a credential ("the password is stored in vault", "keys are
# rotated every 90 days"); after ":" or "=" every value is redacted
_GRAMMAR = re.compile(r"(?:[a-z]+(?:ed|ing|ly)|a|an|the|in|on|at|by|for|from|to|of|not|never|always|only|also|now|"
                      r"still|set|kept|shared|held|required|needed|available|valid|invalid|missing|wrong|correct|"
                      r"different|same|empty|blank|null|none|there|here|per|every|each|our|their|your|its|this|"
                      r"that|these|those|one|two|three|case|sensitive)[.,;:!?]?", re.I)


# a line without any of these holds nothing detect-secrets reports: no token long enough for a provider's key
# pattern or the entropy detectors (hex needs 9+ characters to pass its limit, base64 23+), no URL credentials,
# no keyword; such lines (most of what people type) skip the detectors
_MAYBE = re.compile(r"[A-Za-z0-9+/=_.~-]{10,}|://|pass|secret|token|key|auth|cred|pwd|begin|bearer|login", re.I)
_PLUGINS: list[tuple] | None = None  # (plugin, whether its heuristic filters apply)


def _plugins() -> list[tuple]:
    """detect-secrets' default plugins, configured once per process (its settings are process-wide; entering its
    settings context per line costs ~1 ms)."""
    global _PLUGINS
    if _PLUGINS is None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.settings import cache_bust, configure_settings_from_baseline, get_plugins

        # every plugin and the default filters (what its default_settings() sets inside a context, set here for
        # the process: nothing else in vmem configures detect-secrets)
        cache_bust()
        configure_settings_from_baseline({"plugins_used": [
            {"name": kind.__name__} for kind in get_mapping_from_secret_type_to_class().values()]})
        generic = ("HighEntropyString", "KeywordDetector")
        _PLUGINS = [(p, type(p).__name__.endswith(generic)) for p in get_plugins()]
    return _PLUGINS


def _detections(line: str) -> list[tuple[str, str]]:
    if not _MAYBE.search(line):
        return []
    from detect_secrets.core.scan import _is_filtered_out, _scan_line
    from detect_secrets.util.code_snippet import get_code_snippet

    found: list[tuple[str, str]] = []
    context = get_code_snippet(lines=[line], line_number=1)
    for plugin, heuristic in _plugins():
        for secret in _scan_line(plugin=plugin, filename="harvested.yaml", line=line, line_number=0,
                                 enable_eager_search=False, context=context):
            value = secret.secret_value
            # its false-positive heuristics (sequential, id-like, templated, $-prefixed strings) are for the
            # generic detectors; a provider's key pattern is redacted however it looks (redacting too much
            # costs a word, too little a credential)
            if value and not (heuristic and _is_filtered_out(
                    required_filter_parameters=["context"], filename=secret.filename, secret=value, plugin=plugin,
                    line=line, context=context)):
                found.append((secret.type, value))
    return found


def _word_around(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and text[start - 1] not in _WORD_EDGE:
        start -= 1
    while end < len(text) and text[end] not in _WORD_EDGE:
        end += 1
    return start, end


def redact(text: str) -> tuple[str, list[str]]:
    """(TEXT with every credential replaced by "[redacted KIND]", the kinds found)."""
    if not text:
        return text, []
    spans: list[tuple[int, int, str]] = []
    for line_start, line in _lines(text):
        for kind, value in _detections(line):
            at = line.find(value)
            while at >= 0:
                start, end = _word_around(text, line_start + at, line_start + at + len(value))
                spans.append((start, end, kind))
                at = line.find(value, at + len(value))
    for match in _USERINFO.finditer(text):
        start, end = _word_around(text, match.start("value"), match.end("value"))
        spans.append((start, end, "url credentials"))
    for match in _PROSE.finditer(text):
        value = match.group("value")
        said = text[match.end("word"):match.start("value")]
        if ":" not in said and "=" not in said and _GRAMMAR.fullmatch(value.strip("'\"")):
            continue
        start, end = _word_around(text, match.start("value"), match.end("value"))
        spans.append((start, end, f"{match.group('word').lower()} value"))
    if not spans:
        return text, []
    spans.sort()
    merged: list[list] = []
    for start, end, kind in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, kind])
    out, last = [], 0
    for start, end, kind in merged:
        out.append(text[last:start])
        out.append(REDACTED.format(kind.lower()))
        last = end
    out.append(text[last:])
    return "".join(out), sorted({kind for _, _, kind in merged})


def _lines(text: str):
    start = 0
    for line in text.split("\n"):
        yield start, line
        start += len(line) + 1


def clean_statement(statement: str) -> tuple[str | None, list[str]]:
    """(STATEMENT without the sentences that held a credential, the kinds found): a credential is nobody's team
    fact, so its sentence is dropped, not kept with a hole in it; None when fewer than three words are left."""
    from vmem.harvest.detect import sentences

    text, kinds = redact(statement)
    if not kinds and "[redacted " not in text:  # (a statement built from redacted words holds the marker)
        return text, []
    kept = " ".join(p for p in sentences(text) if "[redacted " not in p)
    return (kept if len(kept.split()) >= 3 else None), kinds
