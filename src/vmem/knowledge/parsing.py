"""Statements to normalised token streams for the merge judge: canonical text, number words, phrases and
abbreviations onto single tokens, quantities with units, stems, role arguments, clause seams."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from collections import namedtuple

from vmem.knowledge.tables import (
    ARTIFACTS,
    BE,
    CONTRACTIONS,
    MARKERS,
    MODAL_CAN,
    MODAL_MUST,
    MONEY_UNITS,
    NUMBER_WORDS,
    PARTICIPLES,
    PERCENT,
    PHRASES,
    PLACES,
    ROLE_WORDS,
    SCALES,
    SOFT_WORDS,
    STOP,
    TIME_UNITS,
    UNIT_FORMS,
    WORDS,
    Ratio,
    ratio,
    times,
)
from vmem.text import canonicalize


class Quantity(namedtuple("Quantity", "key text bound", defaults=("",))):
    """key: canonical value and unit, e.g. "14d" for two weeks; text: as written, for reasons; bound: "gt", "lt",
    "ge" or "le" when the number is a limit ("more than 200")."""

    __slots__ = ()


class Parsed(namedtuple("Parsed", "stream quantities modals written roles breaks hinges skeleton",
                          defaults=((), (), frozenset(), frozenset(), ()))):
    """stream: normalised tokens in order; quantities: Quantity each; modals: a frozenset of modal words;
    written: (normalised token, a form as written) pairs, for reasons; roles: (role word, its argument) pairs, the
    argument being the first content token after the role; breaks: stream positions that open a clause or phrase
    (after a comma, a marker); hinges: stream positions after "of" ("speed of ingestion" is "ingestion speed");
    skeleton: every word in order as (kind, token) for the structure checks, kind "w" for a content word (token as
    in the stream), "f" for a function word (token as written: "was", "the", "of", "to"), "v" for a passive
    participle ("was acquired"), "b" for a clause or phrase break,
    "p" for a possessive 's."""

    __slots__ = ()

    @property
    def words(self) -> frozenset[str]:
        return frozenset(self.stream)

    def show(self, token: str) -> str:
        form = dict(self.written).get(token, token)
        if form in PLACES:
            return form.capitalize()
        if form == "itdept":
            return "IT"
        if is_artifact(form):
            return re.sub(r"^(soc|iso|sev|tier|net|type|art)(\d+)$", r"\1 \2", form).upper()
        return form


def _prepare(statement: str) -> str:
    """Raw text to a canonical string; clause and phrase breaks become sentinel words so no rewrite spans them."""
    text = unicodedata.normalize("NFKC", statement)
    text = text.translate({ord(c): "'" for c in "\u2018\u2019\u02bc\u0060\u00b4"})
    text = re.sub(r"[#@~]", " ", text)  # these mark quantities, positions and markers below
    text = re.sub(r"\bIT\b", " itdept ", text)  # the department, before casefolding makes it "it"
    text = re.sub(r"\bU\.?S\.?(?=\W|$)(?!\.\w)", " usa ", text)
    if "'" in text:  # every contraction holds one (and none is written back): else no pattern is compiled
        for pattern, repl in CONTRACTIONS:
            text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    text = re.sub(r"\bcannot\b", "can not", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(art|approx|vs|e\.g|i\.e|etc)\.", lambda m: "article" if m.group(1).lower() == "art"
                  else m.group(1).replace(".", ""), text, flags=re.IGNORECASE)
    text = re.sub(r",\s*(not|never)\b", " rather than ", text, flags=re.IGNORECASE)  # "X, not Y" contrasts
    text = re.sub(r"[;:!?\u2014]|\s[\u2013-]\s|\.(?=\s|$)", " qqclause ", text)
    text = re.sub(r"(?<!\d),|,(?!\d{3}\b)|[()\[\]\"]", " qqphrase ", text)
    return canonicalize(text)


def _is_number_word(part: str) -> bool:
    return part in NUMBER_WORDS or part in SCALES


def _number_words(tokens: list[str]) -> list[str]:
    """Spelled-out numbers become digits: "twenty-five" -> 25, "ten thousand" -> 10000, "three-year" -> 3-year.

    A bare "one" stays a word unless a unit follows: it is as often a pronoun ("providing one") as a count.
    """
    out: list[str] = []
    i = 0
    while i < len(tokens):
        parts = tokens[i].split("-")
        lead = 0
        while lead < len(parts) and _is_number_word(parts[lead]):
            lead += 1
        if lead == 0 or parts[0] in SCALES:
            if out and re.fullmatch(r"\d+(\.\d+)?", out[-1]) and tokens[i] in SCALES:
                out[-1] = _fmt(times(_decimal(out[-1]), ratio(SCALES[tokens[i]])))
            else:
                out.append(tokens[i])
            i += 1
            continue
        words = list(parts[:lead])
        tail = parts[lead:]
        j = i + 1
        while not tail and j < len(tokens):  # the run continues over whole number-word tokens
            sub = tokens[j].split("-")
            if all(_is_number_word(p) for p in sub):
                words += sub
            elif tokens[j] == "and" and words[-1] in SCALES and j + 1 < len(tokens) \
                    and tokens[j + 1].split("-")[0] in NUMBER_WORDS:
                pass
            else:
                break
            j += 1
        total, current = 0, 0
        for word in words:
            if word in NUMBER_WORDS:
                current += NUMBER_WORDS[word]
            elif word == "hundred":
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * SCALES[word]
                current = 0
        following = tail[0] if tail else (tokens[j] if j < len(tokens) else "")
        previous = out[-1] if out else ""
        if words == ["one"] and following not in UNIT_FORMS and following not in ("business", "working") \
                and previous not in UNIT_FORMS:
            out.append(tokens[i])
        else:
            out.append("-".join([str(total + current)] + tail))
        i = j
    return out


def _decimal(text: str) -> Ratio:
    """The exact value of a plain decimal numeral ("12", "1.25")."""
    whole, _, part = text.partition(".")
    return ratio(int(whole + part), 10 ** len(part))


def _fmt(value: Ratio) -> str:
    return str(value[0]) if value[1] == 1 else f"{value[0]}/{value[1]}"


def _phrase_pattern(phrase: str) -> str:
    words = phrase.split()
    return r"\b" + r"[\s-]+".join(re.escape(w) for w in words) + r"(?:s|es)?\b"


_PHRASE_RULES = sorted(
    ((p, canon) for canon, forms in PHRASES.items() for p in forms),
    key=lambda item: -len(item[0]),
)


def _phrase_keys() -> tuple[dict[str, tuple[int, ...]], dict[tuple[str, str], tuple[int, ...]]] | None:
    """What a text must hold among its consecutive \\w+ words for each phrase of the table to match it: a one-word
    phrase (perhaps with its -s/-es), or a longer phrase's first two words (the second with -s/-es if it ends the
    phrase); as word -> phrase indices and word pair -> phrase indices. Every phrase word is \\w+ and the words
    are joined by [\\s-]+, so a match is always such a run; None (always run the whole table) if some word is not."""
    singles: dict[str, set[int]] = {}
    pairs: dict[tuple[str, str], set[int]] = {}
    for index, (phrase, _) in enumerate(_PHRASE_RULES):
        words = phrase.split()
        if not all(re.fullmatch(r"\w+", w) for w in words):
            return None
        last = {words[-1], words[-1] + "s", words[-1] + "es"}
        if len(words) == 1:
            for w in last:
                singles.setdefault(w, set()).add(index)
        else:
            for w in (last if len(words) == 2 else {words[1]}):
                pairs.setdefault((words[0], w), set()).add(index)
    return ({k: tuple(sorted(v)) for k, v in singles.items()}, {k: tuple(sorted(v)) for k, v in pairs.items()})


_PHRASE_KEYS = _phrase_keys()


@lru_cache(maxsize=1)
def _phrase_re() -> re.Pattern:
    """The whole phrase table as one alternation (~20 ms to compile)."""
    return re.compile("|".join(f"(?P<p{i}>{_phrase_pattern(p)})" for i, (p, _) in enumerate(_PHRASE_RULES)))


@lru_cache(maxsize=512)
def _phrase_subset_re(indices: tuple[int, ...]) -> re.Pattern:
    """The alternation of only the phrases INDICES (in the table's order, so the longest still wins): the same
    matches as the whole table on a text where no other phrase can match, for a fraction of the compile time."""
    return re.compile("|".join(f"(?P<p{i}>{_phrase_pattern(_PHRASE_RULES[i][0])})" for i in indices))


def _phrases(text: str) -> str:
    """Each phrase of the table onto its single token."""
    if _PHRASE_KEYS is None:
        pattern = _phrase_re()
    else:
        words = re.findall(r"\w+", text)
        singles, pairs = _PHRASE_KEYS
        wanted = {i for w in words for i in singles.get(w, ())}
        wanted.update(i for pair in zip(words, words[1:]) for i in pairs.get(pair, ()))
        if not wanted:
            return text  # no phrase can match: no regex is needed
        pattern = _phrase_subset_re(tuple(sorted(wanted)))
    return pattern.sub(lambda m: " " + _PHRASE_RULES[int(m.lastgroup[1:])][1] + " ", text)


def _rewrite(text: str) -> str:
    """Identifiers, standards, comparators and multi-word phrases onto single tokens."""
    # (what every match holds, pattern, replacement): a text without the first is left as it is and the pattern is
    # not compiled (~0.15 ms each; most statements hold few of these words); "" when no one word is in every match
    subs = [
        ("sev", r"\b(?:sev|severity)[\s-]?(\d+)\b", r"sev\1"),
        ("tier", r"\btier[\s-]?(\d+)\b", r"tier\1"), ("soc", r"\bsoc[\s-]?(?:2|ii)\b", "soc2"),
        ("soc", r"\bsoc[\s-]?(?:1|i)\b", "soc1"),
        ("type", r"\btype[\s-]?(?:ii|2)\b", "type2"), ("type", r"\btype[\s-]?(?:i|1)\b", "type1"),
        ("iso", r"\biso(?:/iec)?[\s-]?(\d{4,5})\b", r"iso\1"), ("w", r"\bw[\s-]?(\d)\b", r"w\1"),
        ("net", r"\bnet[\s-]?(\d{2,3})\b", r"net\1"), ("article", r"\barticle[\s-]?(\d+)\b", r"art\1"),
        ("-", r"\b(non|multi|pre|re|co|de|sub|anti|cross)-(?=[a-z])", r"\1"),
        ("p", r"\b(\d+(?:\.\d+)?)\s*(?:percent|per cent|pct)\b", r"\1%"),
        ("twice", r"\btwice\b", "2x"),
        (" times ", r"\b(\d+(?:\.\d+)?) times (?=the|as|more|higher|longer|larger|faster|bigger|greater)", r"\1x "),
        (" than ", r"\b(?:more|greater|higher|longer|bigger|larger|older|later) than (?=\$?\d)", "gt "),
        ("", r"\b(?:over|above|beyond|exceeding|exceeds|exceed|in excess of) (?=\$?\d)", "gt "),
        ("past ", r"(?<!the )\bpast (?=\$?\d)", "gt "),
        (" than ", r"\b(?:less|fewer|lower|shorter|smaller|younger|earlier|newer) than (?=\$?\d)", "lt "),
        ("", r"\b(?:under|below) (?=\$?\d)", "lt "), ("", r"\b(?:up to|at most|no more than) (?=\$?\d)", "le "),
        ("at least ", r"\bat least (?=\$?\d)", "ge "), (" or more", r"(\$?\d[\d.]*[a-z%]*) or more\b", r"ge \1"),
        ("+", r"(\$?\d[\d.]*[a-z%]*)\+", r"gt \1"),
        # "prefer X to Y" and "prefer X over Y" contrast X with Y like "X rather than Y"
        ("", r"\b(prefer\w*|favou?r\w*|choos\w*|prioriti[sz]\w*)\s+((?:(?!qq(?:clause|phrase)\b)\S+\s+)+?)"
             r"(?:over|to)\b", r"\1 \2vs"),
    ]
    for held, pattern, repl in subs:
        if held in text:
            text = re.sub(pattern, repl, text)
    text = _phrases(text)
    # "a week" is one week unless it is a rate ("once a week")
    text = re.sub(r"(?<!once )(?<!2x )(?<!times )\b(?:a|an)\s+(?=(?:second|minute|hour|day|week|month|quarter|year|"
                  r"business day|business week)\b)", "1 ", text)
    text = re.sub(r"\ba decade\b", "10 years", text)
    return text


def _stem(word: str) -> str:
    """A light suffix stripper: enough to align "requires", "required" and "requiring"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            word = word[: -len(suffix)] + repl
            break
    else:
        if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
            word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("val") and len(word) > 5:  # approval / approve, renewal / renew
        word = word[:-2]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    if word.endswith("y") and len(word) > 3:
        word = word[:-1] + "i"
    if word.endswith(("is", "ys")) and len(word) > 5:  # British -ise / American -ize
        word = word[:-1] + "z"
    return word


def normalise_word(word: str) -> str:
    word = WORDS.get(word, word)
    if "_" in word or any(ch.isdigit() for ch in word) or word in ARTIFACTS:
        return word
    return WORDS.get(_stem(word), _stem(word))


_NUMBER_RE = re.compile(r"^(\$|€|£)?(\d+(?:\.\d+)?)(k|m|bn)?(%|x)?$")
_UNIT_BEFORE = {"day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "quarters"}


def _unit_at(tokens: list[str], j: int) -> int:
    """How many tokens from j spell a unit (0 when none)."""
    if j < len(tokens) and tokens[j] in ("business", "working") and j + 1 < len(tokens) \
            and tokens[j + 1] in UNIT_FORMS and UNIT_FORMS[tokens[j + 1]] in ("day", "week"):
        return 2
    if j < len(tokens) and (tokens[j] in UNIT_FORMS or tokens[j] in MONEY_UNITS or tokens[j] in PERCENT):
        return 1
    return 0


_UNIT_FILLERS = frozenset({"extra", "more", "additional", "further", "full", "whole", "calendar", "consecutive"})
BOUNDS = {"gt": "more than", "lt": "less than", "ge": "at least", "le": "at most"}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "final": -1}


def _spread_units(tokens: list[str]) -> list[str]:
    """Ranges share their unit ("3 to 5 weeks" -> "3 weeks to 5 weeks"); "day 90" and "first week" are positions."""
    out = list(tokens)
    i = 0
    while i < len(out):
        if out[i] in _UNIT_BEFORE and i + 1 < len(out) and out[i + 1].isdigit() \
                and not _unit_at(out, i + 2) and (i == 0 or not _NUMBER_RE.match(out[i - 1])):
            unit = UNIT_FORMS[out[i]]
            out[i:i + 2] = [f"@{unit}{out[i + 1]}"]
            if i + 2 < len(out) and out[i + 1] == "to" and out[i + 2].isdigit():
                out[i + 2] = f"@{unit}{out[i + 2]}"
        elif out[i] in _ORDINALS and i + 1 < len(out) and out[i + 1] in _UNIT_BEFORE:
            out[i:i + 2] = [f"@{UNIT_FORMS[out[i + 1]]}{_ORDINALS[out[i]]}"]
        elif _NUMBER_RE.match(out[i]) and not _unit_at(out, i + 1) and i + 2 < len(out) and out[i + 1] == "to" \
                and _NUMBER_RE.match(out[i + 2]):
            width = _unit_at(out, i + 3)
            if width:
                out[i + 1:i + 1] = out[i + 3:i + 3 + width]
        i += 1
    return out


def _quantities(tokens: list[str]) -> tuple[list[str], list[Quantity]]:
    """Numbers with their units become one "#<value><unit>" token each; 2 weeks and 14 days share a key."""
    tokens = _spread_units(tokens)
    out: list[str] = []
    found: list[Quantity] = []
    i = 0
    while i < len(tokens):
        if tokens[i].startswith("@"):
            position = re.fullmatch(r"@([a-z]+)(-?[\d.]+)", tokens[i])
            out.append(tokens[i])
            found.append(Quantity(tokens[i][1:], f"{position.group(1)} {position.group(2)}"))
            i += 1
            continue
        m = _NUMBER_RE.match(tokens[i])
        if not m or (m.group(3) == "m" and not m.group(1)):  # "5m" may be minutes or millions: leave it
            out.append(tokens[i])
            i += 1
            continue
        currency, number, scale, suffix = m.groups()
        value = times(_decimal(number), ratio({"k": 1000, "m": 1_000_000, "bn": 1_000_000_000, None: 1}[scale]))
        unit, factor = currency or suffix or "", ratio(1)
        if not unit and tokens[i + 1:i + 2] and tokens[i + 1] in _UNIT_FILLERS and _unit_at(tokens, i + 2):
            tokens = tokens[:i + 1] + tokens[i + 2:i + 3] + tokens[i + 1:i + 2] + tokens[i + 3:]  # "2 extra weeks"
        width = 0 if unit else _unit_at(tokens, i + 1)
        if width == 2:
            unit, factor = TIME_UNITS["business" + UNIT_FORMS[tokens[i + 2]]]
        elif width == 1:
            word = tokens[i + 1]
            if word in UNIT_FORMS:
                unit, factor = TIME_UNITS[UNIT_FORMS[word]]
            else:
                unit = MONEY_UNITS.get(word, "%")
        key = _fmt(times(value, factor)) + unit
        bound = out[-1] if out and out[-1] in BOUNDS else ""
        out.append("#" + key)
        found.append(Quantity(key, " ".join(tokens[i:i + 1 + width]), bound))
        i += 1 + width
    return out, found


def _split(text: str) -> list[str]:
    """Whitespace tokens, hyphenated and slashed words split, "3-5" read as "3 to 5"."""
    tokens: list[str] = []
    for token in text.split():
        if re.fullmatch(r"\$?\d+(\.\d+)?[k%]?-\$?\d+(\.\d+)?[k%]?", token):
            low, high = token.split("-")
            tokens += [low, "to", high]
        else:
            tokens += [p for p in re.split(r"[-/]", token) if p]
    return tokens


@lru_cache(maxsize=4096)
def parse(statement: str) -> Parsed:
    """Normalise a statement into ordered tokens, quantities and modal verbs."""
    text = " ".join(_number_words(_prepare(statement).split()))
    raw, quantities = _quantities(_split(_rewrite(text)))
    modals = frozenset(t for t in raw if t in MODAL_CAN | MODAL_MUST)
    stream: list[str] = []
    written: dict[str, str] = {}
    roles: list[tuple[str, str]] = []
    pending: list[str] = []  # role words still waiting for their argument
    breaks: set[int] = set()
    hinges: set[int] = set()
    skeleton: list[tuple[str, str]] = []
    raw_forms: list[str] = []  # the form as written of each skeleton entry, for the passive test
    for token in raw:
        form = token
        raw_forms.append(form)
        if token in ("qqclause", "qqphrase"):
            pending = []
            breaks.add(len(stream))
            skeleton.append(("b", token[2:]))
            continue
        if token == "qqposs":  # no word of its own: "Acme's team" and "the Acme team" align as before
            skeleton.append(("p", "'s"))
            continue
        role = ROLE_WORDS.get(token)
        if role:
            pending.append(role)
            if role == "of":
                hinges.add(len(stream))
        if token.startswith(("#", "@")):
            pass
        elif token in MARKERS:
            token = MARKERS[token]
        elif token in STOP:
            skeleton.append(("f", token))
            continue
        else:
            token = normalise_word(token)
            if token in STOP:
                skeleton.append(("f", form))
                continue
        if token.startswith("~"):
            breaks.add(len(stream))
        kind = "f" if token.startswith("~") or role else _word_kind(form, skeleton, raw_forms)
        skeleton.append((kind, form if kind == "f" else token))
        stream.append(token)
        written.setdefault(token, form)
        if not role and not token.startswith("~") and token not in HEDGES:
            roles += [(r, token) for r in pending]
            pending = []
    return Parsed(tuple(stream), tuple(quantities), modals, tuple(written.items()), tuple(roles),
                  frozenset(breaks), frozenset(hinges), tuple(skeleton))


def _word_kind(form: str, skeleton: list[tuple[str, str]], forms: list[str]) -> str:
    """ "v" for a passive participle ("was acquired", "is often held"): a form of "be", at most one -ly adverb,
    then a word ending in -ed or an irregular participle; else "w". FORMS[-1] is FORM itself."""
    if not (form.endswith("ed") or form in PARTICIPLES) or len(form) < 4:
        return "w"
    back = len(skeleton) - 1
    if back >= 0 and forms[back].endswith("ly") and skeleton[back][0] == "w":
        back -= 1
    return "v" if back >= 0 and skeleton[back][0] == "f" and skeleton[back][1] in BE else "w"


@lru_cache(maxsize=1024)
def category_words(categories: tuple[str, ...]) -> frozenset[str]:
    """Words that restate a category (facet and value): "stage:security_review" covers "security review stage"."""
    words: set[str] = set()
    for category in categories:
        facet, _, value = category.partition(":")
        words.add(normalise_word(facet))
        for token in parse(value.replace("_", " ")).words:
            words.add(token)
    return frozenset(words)


def is_artifact(token: str) -> bool:
    return token in ARTIFACTS or bool(re.fullmatch(r"[a-z]+\d+", token))


# Hedges: unmatched on one side they do not change the claim; never a role's argument.
HEDGES = frozenset(map(normalise_word, SOFT_WORDS))
