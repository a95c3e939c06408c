"""De-identification: does a knowledge statement name, contact, quote or pin down a customer? (SPEC 7.2)

Pure functions over a lexicon built from entities/ and the evidence's episodes. Matching works on a
normalised token stream, so case, possessives, plurals, hyphen/space/no-space variants, zero-width
characters and look-alike letters do not hide a term, while a term never matches inside a longer word.
Amounts, counts, percentages and dates are compared as values, not strings.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

# -- normalisation -----------------------------------------------------------------------

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\u180e\ufeff\u00ad\u034f\u061c\u2061\u2062\u2063"),
                           None)
# Letters that render like Latin ones (Cyrillic, Greek, others); NFKC does not fold them.
_CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "һ": "h",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y",
    "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W",
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "ı": "i", "ȷ": "j", "ℓ": "l", "０": "0",
})
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})
_CONTRACTIONS = [(re.compile(p), r) for p, r in (
    (r"\bcan't\b", "can not"), (r"\bwon't\b", "will not"), (r"\bshan't\b", "shall not"), (r"n't\b", " not"),
    (r"'re\b", " are"), (r"'ll\b", " will"), (r"'ve\b", " have"), (r"'d\b", " would"), (r"\bit's\b", "it is"),
    (r"\bthat's\b", "that is"), (r"\bwe're\b", "we are"), (r"\bi'm\b", "i am"), (r"\blet's\b", "let us"),
)]
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_TITLES = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "madam"}
# An alias that is also an everyday industry acronym ("CLM", "SCC") identifies nobody on its own: a statement
# about contract lifecycle management must not be quarantined because some customer's ticker is CLM.
COMMON_ACRONYMS = frozenset("""
    ACV AI API ARR BI CCPA CEO CFO CIO CISO CLM COO CRM CSM CSV CTO DPA DPO EMEA EOR ERP ETL EU GDPR GTM HIPAA HR
    IAM IT KPI KYC LATAM MFA ML MRR MSA NDA NPS NRR OKR PCI PDF PII PLG POC QA RFI RFP ROI SAML SCC SCIM SDK SLA
    SMB SOC SOW SQL SSO TCV UK US VP VPN
""".split())
_EXAMPLE_DOMAINS = re.compile(r"@(?:[\w-]+\.)*(?:example\.(?:com|org|net)|[\w-]+\.(?:example|test|invalid)|localhost)$",
                              re.I)


def fold(text: str) -> str:
    """Visible-form folding: NFKC, no invisible characters, look-alikes to Latin, accents off."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_CONFUSABLES)
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return text.translate(_APOSTROPHES)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; possessive 's is dropped, hyphens, dots and underscores split words."""
    text = fold(text).casefold()
    text = re.sub(r"'s\b|s'(?=\W|$)", lambda m: "" if m.group(0) == "'s" else "s", text)
    return _TOKEN.findall(text)


def _stem(token: str) -> str:
    """Plural-insensitive form: kestrels -> kestrel, branches -> branch, companies -> company."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("ches", "shes", "sses", "xes", "zes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


# -- values: amounts, counts, percentages, dates ------------------------------------------

_MONTHS = {m: i for i, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december")), 1) for m in names}
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
          "billion": 1e9}
_NUMBER = re.compile(
    r"(?P<cur>[$€£¥])?\s?(?P<num>\d{1,3}(?:[,\u00a0 ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>k|thousand|mm|mn|m|million|bn|b|billion)\b)?(?P<pct>\s?%| percent\b)?",
    re.IGNORECASE)
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), ("y", "m", "d")),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), ("M", "d", "y")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I), ("d", "M", "y")),
    (re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b"), ("a", "b", "y")),  # ambiguous order: both readings
    (re.compile(r"\b(\d{4})/(\d{1,2})/(\d{1,2})\b"), ("y", "m", "d")),
]


@dataclass(frozen=True)
class Quantity:
    value: float
    percent: bool


def dates_in(text: str) -> set[date]:
    found: set[date] = set()
    folded = fold(text)
    for pattern, order in _DATE_PATTERNS:
        for match in pattern.finditer(folded):
            parts = dict(zip(order, match.groups()))
            if "M" in parts:
                parts["m"] = str(_MONTHS[parts.pop("M").lower()])
            readings = [(parts["a"], parts["b"]), (parts["b"], parts["a"])] if "a" in parts else [(parts["m"],
                                                                                                    parts["d"])]
            for month, day in readings:
                try:
                    found.add(date(int(parts["y"]), int(month), int(day)))
                except ValueError:
                    continue
    return found


def quantities_in(text: str, dates: bool = True) -> set[Quantity]:
    """Every number in the text as a value (scale words applied); date parts are not quantities."""
    folded = fold(text)
    if dates:
        for pattern, _ in _DATE_PATTERNS:
            folded = pattern.sub(" ", folded)
    out = set()
    for match in _NUMBER.finditer(folded):
        raw = re.sub(r"[,\u00a0 ]", "", match.group("num"))
        value = float(raw)
        if match.group("scale"):
            value *= _SCALE[match.group("scale").lower()]
        out.add(Quantity(round(value, 6), bool(match.group("pct"))))
    return out


def _distinctive(quantity: Quantity, text: str) -> bool:
    """Small round counts ("3-year term") identify nobody; amounts, percentages and big or exact numbers may."""
    return quantity.percent or quantity.value >= 100 or quantity.value != int(quantity.value)


# -- the lexicon ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    entity: str
    kind: str  # name | alias | person | domain | restricted
    text: str
    squashed: str  # tokens joined with no separator, plural-insensitive last token


@dataclass
class Lexicon:
    terms: list[Term] = field(default_factory=list)
    surnames: list[Term] = field(default_factory=list)
    domains: list[Term] = field(default_factory=list)
    quantities: list[tuple[Term, Quantity]] = field(default_factory=list)
    dates: list[tuple[Term, date]] = field(default_factory=list)
    quotes: list[tuple[str, str, list[str]]] = field(default_factory=list)  # entity, quote, its tokens

    _lookup: tuple | None = field(default=None, repr=False, compare=False)

    def lookup(self) -> tuple[dict[str, Term], int]:
        """Terms by squashed form, and the widest word window worth trying; built once per lexicon."""
        if self._lookup is None or self._lookup[0] != len(self.terms):
            by_squash: dict[str, Term] = {}
            for term in self.terms:
                by_squash.setdefault(term.squashed, term)
            width = max((len(tokens(t.text)) for t in self.terms), default=1) + 2
            self._lookup = (len(self.terms), by_squash, width)
        return self._lookup[1], self._lookup[2]

    @property
    def max_words(self) -> int:
        return self.lookup()[1]


def _squash(words: list[str]) -> str:
    return "".join(words[:-1] + [_stem(words[-1])]) if words else ""


def build_lexicon(entities: list[dict], episodes: list[dict] = ()) -> Lexicon:
    lexicon = Lexicon()

    def add(entity: str, kind: str, text: str) -> None:
        words = tokens(text)
        if words:
            lexicon.terms.append(Term(entity, kind, text, _squash(words)))

    for entity in entities:
        eid = entity["id"]
        add(eid, "name", entity["name"])
        for alias in entity.get("aliases") or []:
            if alias.strip().upper() not in COMMON_ACRONYMS:
                add(eid, "alias", alias)
        for person in entity.get("people") or []:
            add(eid, "person", person)
            words = tokens(person)
            if len(words) >= 2:
                lexicon.surnames.append(Term(eid, "person", person, words[-1]))
        for domain in entity.get("domains") or []:
            lexicon.domains.append(Term(eid, "domain", domain, fold(domain).casefold()))
            label = tokens(domain.rsplit(".", 1)[0])
            if label and len("".join(label)) >= 5:
                lexicon.terms.append(Term(eid, "domain", domain, _squash(label)))
        for value in entity.get("restricted") or []:
            found_dates = dates_in(value)
            for day in found_dates:
                lexicon.dates.append((Term(eid, "restricted", value, ""), day))
            quantities = [q for q in quantities_in(value) if _distinctive(q, value)]
            for quantity in quantities:
                lexicon.quantities.append((Term(eid, "restricted", value, ""), quantity))
            if not found_dates and not quantities:
                add(eid, "restricted", value)
    for episode in episodes:
        for quote in episode.get("quotes") or []:
            lexicon.quotes.append((episode["entity"], quote, _quote_tokens(quote)))
    return lexicon


# -- the gate -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    entity: str
    kind: str
    term: str
    found: str

    def describe(self) -> str:
        what = {"name": "customer name", "alias": "customer alias", "person": "customer contact",
                "domain": "customer domain", "restricted": "restricted value", "quote": "customer quote",
                "email": "e-mail address"}[self.kind]
        return f"{what} {self.found!r}" + (f" (matches {self.term!r})" if self.term != self.found else "")


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.I)
_QUOTE_RUN = 6  # a shared run of this many words is reuse, not a theme
_QUOTE_SHARE = 0.6  # or this share of the quote's word triples


def _quote_tokens(text: str) -> list[str]:
    text = fold(text).casefold()
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return [_stem(t) for t in _TOKEN.findall(text)]


def scan(statement: str, lexicon: Lexicon) -> list[Hit]:
    """Every identifying thing in STATEMENT; an empty list means it passes."""
    hits: list[Hit] = []
    folded = fold(statement)
    words = tokens(statement)
    stems = [_stem(w) for w in words]
    # names, aliases, people, domain labels, textual restricted values: windows of words, squashed
    by_squash, max_words = lexicon.lookup()
    for start in range(len(words)):
        for width in range(1, min(max_words, len(words) - start) + 1):
            window = words[start:start + width]
            for key in {_squash(window), "".join(window)}:
                term = by_squash.get(key)
                if term is not None:
                    hits.append(Hit(term.entity, term.kind, term.text, " ".join(window)))
    # a contact's surname alone: after a title, after an initial, or capitalised mid-sentence
    original = _TOKEN.findall(folded)
    present = set(words) | set(stems)
    for surname in lexicon.surnames:
        stem = _stem(surname.squashed)
        if stem not in present and surname.squashed not in present:
            continue
        for i, word in enumerate(words):
            if stems[i] != stem and word != surname.squashed:
                continue
            before = words[i - 1] if i else ""
            capitalised = i < len(original) and original[i][:1].isupper() and i > 0
            if before in _TITLES or len(before) == 1 or (capitalised and len(word) >= 4):
                hits.append(Hit(surname.entity, "person", surname.text, " ".join(words[max(i - 1, 0):i + 1])))
    lowered = folded.casefold()
    for domain in lexicon.domains:
        if re.search(rf"(?<![\w-]){re.escape(domain.squashed)}(?![\w-])", lowered):
            hits.append(Hit(domain.entity, "domain", domain.text, domain.text))
    for email in _EMAIL.findall(folded):
        if not _EXAMPLE_DOMAINS.search(email):  # RFC 2606 placeholders identify nobody
            hits.append(Hit("", "email", email, email))
    for url in _URL.findall(folded):
        if not any(h.found == url for h in hits):
            for domain in lexicon.domains:
                if domain.squashed in url.casefold():
                    hits.append(Hit(domain.entity, "domain", domain.text, url))
    # values
    if lexicon.quantities:
        present = quantities_in(statement)
        for term, quantity in lexicon.quantities:
            if quantity in present or Quantity(quantity.value, not quantity.percent) in present and quantity.percent:
                hits.append(Hit(term.entity, "restricted", term.text, _fmt(quantity)))
    if lexicon.dates:
        present_dates = dates_in(statement)
        for term, day in lexicon.dates:
            if day in present_dates:
                hits.append(Hit(term.entity, "restricted", term.text, day.isoformat()))
    # quoted spans from the evidence's episodes
    if lexicon.quotes:
        said = _quote_tokens(statement)
        for entity, quote, quoted in lexicon.quotes:
            if _reuses(said, quoted):
                hits.append(Hit(entity, "quote", quote, quote))
    unique: dict[tuple[str, str, str], Hit] = {}
    for hit in hits:
        unique.setdefault((hit.entity, hit.kind, hit.term), hit)
    return list(unique.values())


def _fmt(quantity: Quantity) -> str:
    text = f"{quantity.value:,.2f}".rstrip("0").rstrip(".")
    return text + ("%" if quantity.percent else "")


def _reuses(said: list[str], quoted: list[str]) -> bool:
    if not said or not quoted:
        return False
    if len(quoted) < _QUOTE_RUN:
        needle = " ".join(quoted)
        return f" {needle} " in f" {' '.join(said)} "
    longest, previous = 0, [0] * (len(quoted) + 1)
    for word in said:
        current = [0] * (len(quoted) + 1)
        for j, other in enumerate(quoted, 1):
            if word == other:
                current[j] = previous[j - 1] + 1
                longest = max(longest, current[j])
        previous = current
    if longest >= _QUOTE_RUN:
        return True
    triples = {tuple(quoted[i:i + 3]) for i in range(len(quoted) - 2)}
    shared = triples & {tuple(said[i:i + 3]) for i in range(len(said) - 2)}
    return bool(triples) and len(shared) / len(triples) >= _QUOTE_SHARE


@dataclass(frozen=True)
class DeidResult:
    passed: bool
    hits: tuple[Hit, ...]

    @property
    def reason(self) -> str | None:
        if self.passed:
            return None
        return "names a customer: " + "; ".join(hit.describe() for hit in self.hits[:5])

    @property
    def advice(self) -> str:
        return ("rephrase it without customer names, contacts, domains, quotes or exact amounts/dates, "
                "e.g. 'Healthcare customers ...'")


def check_statement(statement: str, lexicon: Lexicon) -> DeidResult:
    hits = scan(statement, lexicon)
    return DeidResult(not hits, tuple(hits))
