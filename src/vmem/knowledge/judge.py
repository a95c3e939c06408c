"""The merge judge: decides whether two knowledge proposals say the same thing, failing closed.

Two judges share one verdict type. The built-in deterministic judge merges only a
*token-aligned paraphrase*: after normalisation (abbreviations, number formats,
inflection, a small table of general synonyms) every content word of one statement
is found in the other, and no decisive feature differs — numbers with their units,
negation, direction (higher/lower), temporal order (before/after), modality
(can/must), named artifacts (DPA, SOC 2, ...), conflicting category facets, the
order of the shared words (every occurrence) beyond one clause move (which is how
"prefer X to Y" and "prefer Y to X" differ although they hold the same words), or a
shared word taking another role ("from X to Y" vs "from Y to X"). The external judge runs a
command from policy and treats anything but a well-formed answer as "no merge".
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from vmem.process import run_bounded
from vmem.text import canonicalize

# The blocker (recall only) hands the judge pairs at or above this cosine that share a category.
BLOCKER_THRESHOLD = 0.5
# The judge's own cosine bar. The lexical checks carry the decision; the bar is a second,
# independent opinion that refuses pairs the embedding calls far apart.
MIN_COSINE = 0.75
# An external judge's answer is one small JSON object; anything bigger or deeper is refused unread.
MAX_ANSWER_BYTES = 1_000_000
MAX_ANSWER_DEPTH = 32


@dataclass(frozen=True)
class Verdict:
    same: bool
    reason: str
    judge: str  # "deterministic" | "command"


# --------------------------------------------------------------------------- tables
# Kept small and general: equivalences any reader of sales, support or data notes
# would accept. Nothing here names a specific customer, pair or statement.

# Multi-word forms collapse onto one token so that "data processing agreement" and
# "DPA" align and count as the same named artifact.
_PHRASES: dict[str, tuple[str, ...]] = {
    "dpa": ("data processing agreement", "data processing addendum", "data protection agreement"),
    "baa": ("business associate agreement",),
    "msa": ("master services agreement", "master service agreement", "master agreement"),
    "nda": ("non disclosure agreement", "nondisclosure agreement", "confidentiality agreement"),
    "sla": ("service level agreement",),
    "sow": ("statement of work",),
    "rfp": ("request for proposal",),
    "sso": ("single sign on", "single signon"),
    "rbac": ("role based access control",),
    "mfa": ("multi factor authentication", "multifactor authentication", "two factor authentication", "2fa"),
    "nrr": ("net revenue retention", "net dollar retention", "ndr"),
    "grr": ("gross revenue retention", "gross dollar retention", "gdr"),
    "arr": ("annual recurring revenue",),
    "mrr": ("monthly recurring revenue",),
    "acv": ("annual contract value",),
    "ltv": ("lifetime value", "customer lifetime value", "clv"),
    "cac": ("customer acquisition cost",),
    "qoq": ("quarter over quarter",),
    "mom": ("month over month",),
    "yoy": ("year over year",),
    "tco": ("total cost of ownership",),
    "roi": ("return on investment",),
    "poc": ("proof of concept", "proofs of concept"),
    "rca": ("root cause analysis", "root cause analyses"),
    "qbr": ("quarterly business review",),
    "csat": ("customer satisfaction score", "customer satisfaction"),
    "nps": ("net promoter score",),
    "ae": ("account executive", "account exec"),
    "se": ("solutions engineer", "solution engineer", "sales engineer"),
    "csm": ("customer success manager",),
    "po": ("purchase order",),
    "smb": ("small and medium business", "small and mid sized business", "small business", "small businesses"),
    "onprem": ("on premises", "on premise", "on prem"),
    "saas": ("software as a service",),
    "sdk": ("software development kit",),
    "api": ("application programming interface",),
    "crm": ("customer relationship management",),
    "erp": ("enterprise resource planning",),
    "poa": ("plan of action",),
    "kpi": ("key performance indicator",),
    "gdpr": ("general data protection regulation",),
    "usa": ("united states", "american", "americans"),
    "uk": ("united kingdom", "british", "britain"),
    "eu": ("european union",),
    "apac": ("asia pacific",),
    "latam": ("latin america", "latin american"),
    "anz": ("australia and new zealand",),
    "nz": ("new zealand", "new zealander", "new zealanders"),
    "australia": ("australian", "australians"),
    "canada": ("canadian", "canadians"),
    "germany": ("german",),
    "france": ("french",),
    "japan": ("japanese",),
    "india": ("indian",),
    "brazil": ("brazilian",),
    "nordic": ("nordics", "scandinavia", "scandinavian"),
    # general verb phrases and connectives
    "start": ("kick off", "kicks off", "kicked off", "kicking off", "get started"),
    "approve": ("sign off on", "signs off on", "signed off on", "sign off", "signs off", "signed off"),
    "exclude": ("leave out", "leaves out", "leaving out", "left out"),
    "before": ("prior to", "ahead of", "in advance of"),
    "after": ("following", "subsequent to"),
    "faster": ("more quickly", "quicker", "more quick", "sooner"),
    "slower": ("more slowly",),
    "annual": ("per year", "each year", "every year", "yearly", "annually"),
    "monthly": ("per month", "each month", "every month"),
    "weekly": ("per week", "each week", "every week"),
    "daily": ("per day", "each day", "every day"),
    "quarterly": ("per quarter", "each quarter", "every quarter"),
    "usually": ("most of the time", "in most cases", "as a rule", "tend to", "tends to", "tended to"),
    "vs": ("rather than", "instead of", "versus", "as opposed to", "in place of"),
    "all": ("every", "any", "anything", "each", "everything"),
    "mostoften": ("most often", "most frequently", "most commonly"),
    "timezone": ("time zone",),
    "itdept": ("it department",),
    "oncall": ("on call",),
    "onetime": ("one time", "one off"),
    "free": ("free of charge", "at no charge", "no charge", "at no cost", "no cost", "at no extra cost",
             "no extra cost", "at no additional cost", "without charge"),
    "plus": ("in addition to", "on top of", "as well as", "along with", "together with"),
    # verb-particle pairs and their one-word nouns
    "checkout": ("check out",), "rollout": ("roll out", "rolls out", "rolled out", "rolling out"),
    "setup": ("set up", "sets up", "setting up"), "signup": ("sign up", "signs up", "signed up", "signing up"),
    "login": ("log in", "logs in", "logged in", "logging in"), "followup": ("follow up", "follows up"),
    "handoff": ("hand off", "hands off", "handed off"),
}

# Single words: inflected forms are handled by the stemmer, these are true synonyms.
_WORDS: dict[str, str] = {
    "typically": "usually", "generally": "usually", "normally": "usually", "commonly": "usually",
    "often": "usually", "frequently": "usually", "mostly": "usually", "mainly": "usually",
    "largely": "usually", "primarily": "usually", "predominantly": "usually",
    "seldom": "rarely", "infrequently": "rarely", "past": "last",
    "client": "customer", "clients": "customer",
    "firm": "company", "organization": "company", "organisation": "company", "enterprises": "enterprise",
    "big": "large",
    "begin": "start", "commence": "start", "began": "start", "begun": "start",
    "need": "require", "needs": "require", "needed": "require",
    "request": "ask", "requests": "ask", "requested": "ask",
    "quick": "fast", "quickly": "fast", "rapid": "fast", "rapidly": "fast",
    "display": "show", "displays": "show", "displayed": "show",
    "calculate": "compute", "calculating": "compute", "calculated": "compute",
    "deduplicate": "dedupe", "deduplicated": "dedupe", "deduplicating": "dedupe", "deduped": "dedupe",
    "supplier": "vendor", "suppliers": "vendor",
    "retain": "keep", "retained": "keep", "kept": "keep", "retains": "keep",
    "omit": "exclude", "omits": "exclude", "omitted": "exclude",
    "contain": "include", "contains": "include", "contained": "include",
    "skip": "miss", "skips": "miss", "skipped": "miss", "misses": "miss", "missed": "miss",
    "opp": "opportunity", "opps": "opportunity",
    "prospective": "prospect",
    "got": "get", "gotten": "get", "took": "take", "taken": "take", "made": "make", "sent": "send",
    "seen": "see", "saw": "see", "brought": "bring", "paid": "pay", "sold": "sell", "bought": "buy",
    "ran": "run", "chosen": "choose", "chose": "choose", "went": "go", "gone": "go", "held": "hold",
    "met": "meet", "lost": "lose", "spent": "spend", "said": "say", "told": "tell", "found": "find",
    "led": "lead", "wrote": "write", "written": "write", "grew": "grow", "grown": "grow",
    "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "knew": "know", "known": "know",
    "gave": "give", "given": "give", "came": "come", "became": "become",
    "no": "not", "never": "not", "without": "not", "none": "not",
    "nor": "not", "neither": "not",
}

_STOP = frozenset("""
a an the of in on at onto via through per as is are was were be been being
am has have had having do does did doing will would shall should can could may might must it its they
them their theirs themselves we us our ours ourselves you your he she his her this that these those
there here who whom whose which what where how whether or either and s t also too just very really
actually quite simply even already indeed there's over up own during plus
""".split())

# Function words that carry roles and clause structure. They need no counterpart (so "in APAC" and
# "APAC" align), but when both statements use one, its position relative to the shared words counts:
# "filter events by session" is not "filter sessions by event", "X because Y" is not "Y because X".
_MARKERS = {
    "to": "~to", "from": "~from", "by": "~by", "for": "~for", "with": "~with", "into": "~into",
    "if": "~when", "when": "~when", "whenever": "~when", "once": "~when",
    "because": "~because", "since": "~because", "so": "~so", "therefore": "~so", "thus": "~so",
    "hence": "~so", "consequently": "~so", "then": "~then", "but": "~but", "while": "~while",
    "whereas": "~while", "although": "~while", "though": "~while",
}

# Words that give the phrase after them a role: "from X to Y", "X by Y", "X rather than Y" (rewritten "vs").
# Two statements that attach the same shared word to different roles say different things.
_ROLE_WORDS = {
    "from": "from", "to": "to", "into": "to", "by": "by", "of": "of", "than": "than", "before": "before",
    "after": "after", "over": "over", "between": "between", "vs": "vs",
}

# Unmatched on one side only, these hedge or connect and do not change the claim.
_SOFT_WORDS = frozenset("""
usually about roughly approximately around circa nearly almost typically out down
""".split())

_NEGATION = "not"
_MODAL_CAN = frozenset({"can", "could", "may", "might"})
_MODAL_MUST = frozenset({"must", "should", "shall"})

# Comparative direction: a pair whose signs differ says opposite things.
_UP_WORDS = frozenset("""
higher more increase raise rise grow spike surge jump longer faster better greater double inflate
overstate exceed expand boost lengthen extend improve
""".split())
_DOWN_WORDS = frozenset("""
lower less fewer decrease reduce drop fall decline shrink shorter shorten slower worse halve half cut
understate undercount deflate lessen diminish
""".split())

# Named artifacts, standards, roles and places: a difference here is always decisive.
_ARTIFACTS = frozenset("""
dpa baa msa nda sla sow rfp sso scim saml rbac mfa nrr grr arr mrr acv ltv cac qoq mom yoy tco roi poc
rca qbr csat nps ae se csm po smb onprem hipaa gdpr ccpa pci hitrust fedramp soc iso api sdk crm erp usd
eur gbp utc cfo cio cto ciso coo ceo vp itdept eu uk usa apac emea latam dach anz nz australia canada
germany france japan india brazil nordic kpi saas
""".split())

_PLACES = frozenset("australia canada germany france japan india brazil nordic".split())

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}

_MONTH = Fraction(1461, 48)  # days in an average month, so 12 months make a year of 365.25 days
_TIME_UNITS: dict[str, tuple[str, Fraction]] = {
    "second": ("d", Fraction(1, 86400)), "sec": ("d", Fraction(1, 86400)),
    "minute": ("d", Fraction(1, 1440)), "min": ("d", Fraction(1, 1440)),
    "hour": ("d", Fraction(1, 24)), "hr": ("d", Fraction(1, 24)),
    "day": ("d", Fraction(1)), "week": ("d", Fraction(7)), "month": ("d", _MONTH),
    "quarter": ("d", 3 * _MONTH), "year": ("d", 12 * _MONTH), "yr": ("d", 12 * _MONTH),
    "decade": ("d", 120 * _MONTH),
    "businessday": ("bd", Fraction(1)), "businessweek": ("bd", Fraction(5)),
}
_UNIT_FORMS = {u + suffix: u for u in _TIME_UNITS for suffix in ("", "s")}
_MONEY_UNITS = {"dollar": "$", "dollars": "$", "usd": "$", "cent": "c", "cents": "c", "euro": "€", "euros": "€",
                "eur": "€", "pound": "£", "pounds": "£", "gbp": "£"}
_PERCENT = {"percent", "pct", "percentage"}

_CONTRACTIONS = [
    (r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"\bshan't\b", "shall not"),
    (r"\b(\w+)n't\b", r"\1 not"), (r"\b(it|that|there|what|here)'s\b", r"\1 is"),
    (r"\blet's\b", "let us"), (r"'re\b", " are"), (r"'ve\b", " have"), (r"'ll\b", " will"),
    (r"'d\b", " would"), (r"\bi'm\b", "i am"), (r"(\w)'s\b", r"\1"), (r"(\w)s'(?=\s|$)", r"\1s"),
]


# --------------------------------------------------------------------------- parsing

@dataclass(frozen=True)
class Quantity:
    key: str         # canonical value and unit, e.g. "14d" for two weeks
    text: str        # as written, for reasons
    bound: str = ""  # "gt", "lt", "ge" or "le" when the number is a limit ("more than 200")


@dataclass(frozen=True)
class Parsed:
    stream: tuple[str, ...]          # normalised tokens in order
    quantities: tuple[Quantity, ...]
    modals: frozenset[str]
    written: tuple[tuple[str, str], ...] = ()  # normalised token -> a form as written, for reasons
    roles: tuple[tuple[str, str], ...] = ()  # (role word, its argument): the first content token after the role
    breaks: frozenset[int] = frozenset()  # stream positions that open a clause or phrase (after a comma, a marker)
    hinges: frozenset[int] = frozenset()  # stream positions after "of": "speed of ingestion" is "ingestion speed"

    @property
    def words(self) -> frozenset[str]:
        return frozenset(self.stream)

    def show(self, token: str) -> str:
        form = dict(self.written).get(token, token)
        if form in _PLACES:
            return form.capitalize()
        if form == "itdept":
            return "IT"
        if _is_artifact(form):
            return re.sub(r"^(soc|iso|sev|tier|net|type|art)(\d+)$", r"\1 \2", form).upper()
        return form


def _prepare(statement: str) -> str:
    """Raw text to a canonical string; clause and phrase breaks become sentinel words so no rewrite spans them."""
    text = unicodedata.normalize("NFKC", statement)
    text = text.translate({ord(c): "'" for c in "\u2018\u2019\u02bc\u0060\u00b4"})
    text = re.sub(r"[#@~]", " ", text)  # these mark quantities, positions and markers below
    text = re.sub(r"\bIT\b", " itdept ", text)  # the department, before casefolding makes it "it"
    text = re.sub(r"\bU\.?S\.?(?=\W|$)(?!\.\w)", " usa ", text)
    for pattern, repl in _CONTRACTIONS:
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    text = re.sub(r"\bcannot\b", "can not", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(art|approx|vs|e\.g|i\.e|etc)\.", lambda m: "article" if m.group(1).lower() == "art"
                  else m.group(1).replace(".", ""), text, flags=re.IGNORECASE)
    text = re.sub(r",\s*(not|never)\b", " rather than ", text, flags=re.IGNORECASE)  # "X, not Y" contrasts
    text = re.sub(r"[;:!?\u2014]|\s[\u2013-]\s|\.(?=\s|$)", " qqclause ", text)
    text = re.sub(r"(?<!\d),|,(?!\d{3}\b)|[()\[\]\"]", " qqphrase ", text)
    return canonicalize(text)


def _is_number_word(part: str) -> bool:
    return part in _NUMBER_WORDS or part in _SCALES


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
        if lead == 0 or parts[0] in _SCALES:
            if out and re.fullmatch(r"\d+(\.\d+)?", out[-1]) and tokens[i] in _SCALES:
                out[-1] = _fmt(Fraction(out[-1]) * _SCALES[tokens[i]])
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
            elif tokens[j] == "and" and words[-1] in _SCALES and j + 1 < len(tokens) \
                    and tokens[j + 1].split("-")[0] in _NUMBER_WORDS:
                pass
            else:
                break
            j += 1
        total, current = 0, 0
        for word in words:
            if word in _NUMBER_WORDS:
                current += _NUMBER_WORDS[word]
            elif word == "hundred":
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * _SCALES[word]
                current = 0
        following = tail[0] if tail else (tokens[j] if j < len(tokens) else "")
        previous = out[-1] if out else ""
        if words == ["one"] and following not in _UNIT_FORMS and following not in ("business", "working") \
                and previous not in _UNIT_FORMS:
            out.append(tokens[i])
        else:
            out.append("-".join([str(total + current)] + tail))
        i = j
    return out


def _fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _phrase_pattern(phrase: str) -> str:
    words = phrase.split()
    return r"\b" + r"[\s-]+".join(re.escape(w) for w in words) + r"(?:s|es)?\b"


_PHRASE_RULES = sorted(
    ((p, canon) for canon, forms in _PHRASES.items() for p in forms),
    key=lambda item: -len(item[0]),
)
_PHRASE_RE = re.compile("|".join(f"(?P<p{i}>{_phrase_pattern(p)})" for i, (p, _) in enumerate(_PHRASE_RULES)))


def _rewrite(text: str) -> str:
    """Identifiers, standards, comparators and multi-word phrases onto single tokens."""
    subs = [
        (r"\b(?:sev|severity)[\s-]?(\d+)\b", r"sev\1"),
        (r"\btier[\s-]?(\d+)\b", r"tier\1"), (r"\bsoc[\s-]?(?:2|ii)\b", "soc2"), (r"\bsoc[\s-]?(?:1|i)\b", "soc1"),
        (r"\btype[\s-]?(?:ii|2)\b", "type2"), (r"\btype[\s-]?(?:i|1)\b", "type1"),
        (r"\biso(?:/iec)?[\s-]?(\d{4,5})\b", r"iso\1"), (r"\bw[\s-]?(\d)\b", r"w\1"),
        (r"\bnet[\s-]?(\d{2,3})\b", r"net\1"), (r"\barticle[\s-]?(\d+)\b", r"art\1"),
        (r"\b(non|multi|pre|re|co|de|sub|anti|cross)-(?=[a-z])", r"\1"),
        (r"\b(\d+(?:\.\d+)?)\s*(?:percent|per cent|pct)\b", r"\1%"),
        (r"\btwice\b", "2x"), (r"\b(\d+(?:\.\d+)?) times (?=the|as|more|higher|longer|larger|faster|bigger|greater)", r"\1x "),
        (r"\b(?:more|greater|higher|longer|bigger|larger|older|later) than (?=\$?\d)", "gt "),
        (r"\b(?:over|above|beyond|exceeding|exceeds|exceed|in excess of) (?=\$?\d)", "gt "),
        (r"(?<!the )\bpast (?=\$?\d)", "gt "),
        (r"\b(?:less|fewer|lower|shorter|smaller|younger|earlier|newer) than (?=\$?\d)", "lt "),
        (r"\b(?:under|below) (?=\$?\d)", "lt "), (r"\b(?:up to|at most|no more than) (?=\$?\d)", "le "),
        (r"\bat least (?=\$?\d)", "ge "), (r"(\$?\d[\d.]*[a-z%]*) or more\b", r"ge \1"),
        (r"(\$?\d[\d.]*[a-z%]*)\+", r"gt \1"),
        # "prefer X to Y" and "prefer X over Y" contrast X with Y like "X rather than Y"
        (r"\b(prefer\w*|favou?r\w*|choos\w*|prioriti[sz]\w*)\s+((?:(?!qq)\S+\s+)+?)(?:over|to)\b", r"\1 \2vs"),
    ]
    for pattern, repl in subs:
        text = re.sub(pattern, repl, text)
    text = _PHRASE_RE.sub(lambda m: " " + _PHRASE_RULES[int(m.lastgroup[1:])][1] + " ", text)
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


def _normalise_word(word: str) -> str:
    word = _WORDS.get(word, word)
    if "_" in word or any(ch.isdigit() for ch in word) or word in _ARTIFACTS:
        return word
    return _WORDS.get(_stem(word), _stem(word))


_NUMBER_RE = re.compile(r"^(\$|€|£)?(\d+(?:\.\d+)?)(k|m|bn)?(%|x)?$")
_UNIT_BEFORE = {"day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "quarters"}


def _unit_at(tokens: list[str], j: int) -> int:
    """How many tokens from j spell a unit (0 when none)."""
    if j < len(tokens) and tokens[j] in ("business", "working") and j + 1 < len(tokens) \
            and tokens[j + 1] in _UNIT_FORMS and _UNIT_FORMS[tokens[j + 1]] in ("day", "week"):
        return 2
    if j < len(tokens) and (tokens[j] in _UNIT_FORMS or tokens[j] in _MONEY_UNITS or tokens[j] in _PERCENT):
        return 1
    return 0


_UNIT_FILLERS = frozenset({"extra", "more", "additional", "further", "full", "whole", "calendar", "consecutive"})
_BOUNDS = {"gt": "more than", "lt": "less than", "ge": "at least", "le": "at most"}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "final": -1}


def _spread_units(tokens: list[str]) -> list[str]:
    """Ranges share their unit ("3 to 5 weeks" -> "3 weeks to 5 weeks"); "day 90" and "first week" are positions."""
    out = list(tokens)
    i = 0
    while i < len(out):
        if out[i] in _UNIT_BEFORE and i + 1 < len(out) and out[i + 1].isdigit() \
                and not _unit_at(out, i + 2) and (i == 0 or not _NUMBER_RE.match(out[i - 1])):
            unit = _UNIT_FORMS[out[i]]
            out[i:i + 2] = [f"@{unit}{out[i + 1]}"]
            if i + 2 < len(out) and out[i + 1] == "to" and out[i + 2].isdigit():
                out[i + 2] = f"@{unit}{out[i + 2]}"
        elif out[i] in _ORDINALS and i + 1 < len(out) and out[i + 1] in _UNIT_BEFORE:
            out[i:i + 2] = [f"@{_UNIT_FORMS[out[i + 1]]}{_ORDINALS[out[i]]}"]
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
        value = Fraction(number) * {"k": 1000, "m": 1_000_000, "bn": 1_000_000_000, None: 1}[scale]
        unit, factor = currency or suffix or "", Fraction(1)
        if not unit and tokens[i + 1:i + 2] and tokens[i + 1] in _UNIT_FILLERS and _unit_at(tokens, i + 2):
            tokens = tokens[:i + 1] + tokens[i + 2:i + 3] + tokens[i + 1:i + 2] + tokens[i + 3:]  # "2 extra weeks"
        width = 0 if unit else _unit_at(tokens, i + 1)
        if width == 2:
            unit, factor = _TIME_UNITS["business" + _UNIT_FORMS[tokens[i + 2]]]
        elif width == 1:
            word = tokens[i + 1]
            if word in _UNIT_FORMS:
                unit, factor = _TIME_UNITS[_UNIT_FORMS[word]]
            else:
                unit = _MONEY_UNITS.get(word, "%")
        key = _fmt(value * factor) + unit
        bound = out[-1] if out and out[-1] in _BOUNDS else ""
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
    modals = frozenset(t for t in raw if t in _MODAL_CAN | _MODAL_MUST)
    stream: list[str] = []
    written: dict[str, str] = {}
    roles: list[tuple[str, str]] = []
    pending: list[str] = []  # role words still waiting for their argument
    breaks: set[int] = set()
    hinges: set[int] = set()
    for token in raw:
        form = token
        if token in ("qqclause", "qqphrase"):
            pending = []
            breaks.add(len(stream))
            continue
        role = _ROLE_WORDS.get(token)
        if role:
            pending.append(role)
            if role == "of":
                hinges.add(len(stream))
        if token.startswith(("#", "@")):
            pass
        elif token in _MARKERS:
            token = _MARKERS[token]
        elif token in _STOP:
            continue
        else:
            token = _normalise_word(token)
            if token in _STOP:
                continue
        if token.startswith("~"):
            breaks.add(len(stream))
        stream.append(token)
        written.setdefault(token, form)
        if not role and not token.startswith("~") and token not in _HEDGES:
            roles += [(r, token) for r in pending]
            pending = []
    return Parsed(tuple(stream), tuple(quantities), modals, tuple(written.items()), tuple(roles),
                  frozenset(breaks), frozenset(hinges))


@lru_cache(maxsize=1024)
def _category_words(categories: tuple[str, ...]) -> frozenset[str]:
    """Words that restate a category (facet and value): "stage:security_review" covers "security review stage"."""
    words: set[str] = set()
    for category in categories:
        facet, _, value = category.partition(":")
        words.add(_normalise_word(facet))
        for token in parse(value.replace("_", " ")).words:
            words.add(token)
    return frozenset(words)


# --------------------------------------------------------------------------- detectors
# Each returns a short reason when it finds a decisive difference, else None. The lexicons
# are written as plain words and compared in normalised form.
_UP = frozenset(map(_normalise_word, _UP_WORDS))
_DOWN = frozenset(map(_normalise_word, _DOWN_WORDS))
_TEMPORAL = frozenset(map(_normalise_word, ("before", "after")))
_HEDGES = frozenset(map(_normalise_word, _SOFT_WORDS))
_SOFT = _HEDGES | frozenset(_MARKERS.values())

def category_conflict(categories_a: list[str], categories_b: list[str]) -> str | None:
    """Same facet, no shared value (industry:healthcare vs industry:retail). An extra facet is fine."""
    def facets(categories: list[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for category in categories:
            facet, _, value = category.partition(":")
            out.setdefault(facet, set()).add(value)
        return out

    fa, fb = facets(categories_a), facets(categories_b)
    for facet in sorted(fa.keys() & fb.keys()):
        if not fa[facet] & fb[facet]:
            return f"categories conflict on {facet}: {', '.join(sorted(fa[facet]))} vs {', '.join(sorted(fb[facet]))}"
    return None


def number_difference(a: Parsed, b: Parsed) -> str | None:
    """Numbers compare by value in a common unit (2 weeks = 14 days, $100k = 100,000 dollars), then by bound."""
    for what, key in (("numbers", lambda q: q.key), ("bounds", lambda q: (q.bound, q.key))):
        ka, kb = Counter(map(key, a.quantities)), Counter(map(key, b.quantities))
        if ka != kb:
            def shown(q: Quantity) -> str:
                return f"{_BOUNDS[q.bound]} {q.text}" if what == "bounds" and q.bound else q.text
            only_a = [shown(q) for q in a.quantities if (ka - kb)[key(q)]]
            only_b = [shown(q) for q in b.quantities if (kb - ka)[key(q)]]
            return f"different {what} {', '.join(only_a) or '(none)'} vs {', '.join(only_b) or '(none)'}"
    return None


def negation_difference(a: Parsed, b: Parsed) -> str | None:
    na, nb = a.stream.count(_NEGATION), b.stream.count(_NEGATION)
    if na == nb:
        return None
    return f"negation differs (a has {na} negation{'s' * (na != 1)}, b has {nb})"


def _listing(parsed: Parsed, tokens: list[str]) -> str:
    return ", ".join(parsed.show(t) for t in tokens) or "none"


def direction_difference(a: Parsed, b: Parsed) -> str | None:
    """As many "up" words (higher, increase, faster) and "down" words (lower, shrink, slower) on each side."""
    def signs(parsed: Parsed) -> Counter:
        return Counter("up" if t in _UP else "down" for t in parsed.stream if t in _UP or t in _DOWN)

    if signs(a) == signs(b):
        return None
    words_a = [t for t in a.stream if t in _UP or t in _DOWN]
    words_b = [t for t in b.stream if t in _UP or t in _DOWN]
    return f"direction differs ({_listing(a, words_a)} vs {_listing(b, words_b)})"


def temporal_difference(a: Parsed, b: Parsed) -> str | None:
    ta = sorted(t for t in a.stream if t in _TEMPORAL)
    tb = sorted(t for t in b.stream if t in _TEMPORAL)
    if ta == tb:
        return None
    return f"temporal order differs ({_listing(a, ta)} vs {_listing(b, tb)})"


def modality_difference(a: Parsed, b: Parsed) -> str | None:
    def kind(parsed: Parsed) -> set[str]:
        return {"can" if m in _MODAL_CAN else "must" for m in parsed.modals}

    ka, kb = kind(a), kind(b)
    if ka and kb and not ka & kb:
        return f"modality differs ({'/'.join(sorted(ka))} vs {'/'.join(sorted(kb))})"
    return None


def _is_artifact(token: str) -> bool:
    return token in _ARTIFACTS or bool(re.fullmatch(r"[a-z]+\d+", token))


def artifact_difference(a: Parsed, b: Parsed) -> str | None:
    xa = {t for t in a.words if _is_artifact(t)}
    xb = {t for t in b.words if _is_artifact(t)}
    if xa == xb:
        return None
    return f"different named artifacts {_listing(a, sorted(xa - xb))} vs {_listing(b, sorted(xb - xa))}"


def causal_difference(a: Parsed, b: Parsed) -> str | None:
    """ "X because Y" and "Y, so X" agree, but the shared-word order cannot tell them from "X, so Y"."""
    def kinds(parsed: Parsed) -> set[str]:
        return {t for t in parsed.words if t in ("~because", "~so")}

    ka, kb = kinds(a), kinds(b)
    if ka and kb and not ka & kb:
        return "cause and effect are linked differently (because vs so)"
    return None


def role_difference(a: Parsed, b: Parsed) -> str | None:
    """A shared word that takes another role ("from X to Y" vs "from Y to X"), or a role that takes another shared
    word ("made by X" vs "made by Y" when both name X and Y), is a swap of arguments. "of" stands in for "by" and
    "from" too often ("a play by/of Shaw", "Joe of/from Indianapolis") to count as another role, so only the second
    test sees it (measured on PAWS-Wiki dev: as another role it refused 2 paraphrases for each non-paraphrase)."""
    shared = {t for t in a.words & b.words if not t.startswith("~")}
    ra = {(r, t) for r, t in a.roles if t in shared}
    rb = {(r, t) for r, t in b.roles if t in shared}
    for t in sorted(shared):
        roles_a = sorted(r for r, u in ra if u == t and r != "of")
        roles_b = sorted(r for r, u in rb if u == t and r != "of")
        if roles_a and roles_b and roles_a != roles_b:
            return (f"roles differ: '{a.show(t)}' follows '{'/'.join(roles_a)}' in a but "
                    f"'{'/'.join(roles_b)}' in b")
    for role in sorted({r for r, _ in ra} & {r for r, _ in rb}):
        only_a = sorted(t for r, t in ra - rb if r == role)
        only_b = sorted(t for r, t in rb - ra if r == role)
        if only_a and only_b:
            return (f"roles differ: '{role}' takes '{a.show(only_a[0])}' in a but '{b.show(only_b[0])}' in b "
                    "(arguments swapped)")
    return None


def order_difference(a: Parsed, b: Parsed) -> str | None:
    """Every occurrence of the shared words, aligned: they may move as one block (a clause moved); anything more
    is a swap of roles or preference."""
    shared = (a.words & b.words) - _HEDGES
    seq_a, seq_b = _drop_extras([(t, i) for i, t in enumerate(a.stream) if t in shared],
                                [(t, i) for i, t in enumerate(b.stream) if t in shared])
    if one_block_move([t for t, _ in seq_a], [t for t, _ in seq_b], _seams(a.breaks, seq_a),
                      _seams(b.breaks, seq_b), _seams(a.hinges, seq_a), _seams(b.hinges, seq_b)):
        return None
    seq_a, seq_b = [t for t, _ in seq_a], [t for t, _ in seq_b]
    # name the widest inverted pair of content words: usually the two things that traded places
    first_a = list(dict.fromkeys(seq_a))
    position_b = {t: i for i, t in reversed(list(enumerate(seq_b)))}
    content = [t for t in first_a if not t.startswith("~")]
    inverted = [(j - i, s, t) for i, s in enumerate(content) for j, t in enumerate(content)
                if i < j and position_b[t] < position_b[s]]
    if inverted:
        _, s, t = max(inverted)
        return (f"word order differs: '{a.show(s)}' comes before '{a.show(t)}' in a but after it in b "
                "(roles or preference swapped)")
    return "word order differs beyond a single clause move"


def lcs_pairs(seq_a: list[str], seq_b: list[str]) -> list[tuple[int, int]]:
    """Index pairs of one longest common subsequence of the two sequences (every occurrence counts)."""
    n, m = len(seq_a), len(seq_b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if seq_a[i] == seq_b[j] else max(table[i + 1][j], table[i][j + 1])
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if seq_a[i] == seq_b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _seams(positions: frozenset[int], seq: list[tuple[str, int]]) -> set[int]:
    """Positions k in seq where one of the stream positions (a clause opening, say) falls between seq[k - 1] and
    seq[k] in the statement; seq holds (token, stream position)."""
    return {k for k in range(1, len(seq)) if any(p in positions for p in range(seq[k - 1][1] + 1, seq[k][1] + 1))}


def _drop_extras(seq_a: list[tuple[str, int]], seq_b: list[tuple[str, int]]) \
        -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """Occurrences one side has more of ("Europe ... Europe" vs one "Europe") are dropped where the alignment
    leaves them unmatched, so both sequences hold the same multiset. Items are (token, position)."""
    ca, cb = Counter(t for t, _ in seq_a), Counter(t for t, _ in seq_b)
    if ca == cb:
        return seq_a, seq_b
    pairs = lcs_pairs([t for t, _ in seq_a], [t for t, _ in seq_b])
    matched_a, matched_b = {i for i, _ in pairs}, {j for _, j in pairs}

    def keep(seq: list[tuple[str, int]], matched: set[int], excess: Counter) -> list[tuple[str, int]]:
        out = []
        for i in range(len(seq) - 1, -1, -1):  # drop the last unmatched occurrences first
            if i not in matched and excess[seq[i][0]] > 0:
                excess[seq[i][0]] -= 1
            else:
                out.append(seq[i])
        return out[::-1]

    return keep(seq_a, matched_a, ca - cb), keep(seq_b, matched_b, cb - ca)


def one_block_move(seq_a: list[str], seq_b: list[str], seams_a: set[int] | None = None,
                   seams_b: set[int] | None = None, hinges_a: set[int] = frozenset(),
                   hinges_b: set[int] = frozenset()) -> bool:
    """True when seq_b is seq_a, or seq_a with one contiguous block cut and pasted elsewhere (X Y -> Y X, the rest
    in place). Repeated words are compared at every occurrence.

    With seams (positions k where a clause or phrase opens before seq[k]), the cut between X and Y must be a seam
    in both statements, or in one of them when the block reaches the edge of the shared words ("In 2019, X did Y"
    vs "X did Y in 2019"): a moved clause, not two words trading places inside one ("in Europe and in Belgium" vs
    "in Belgium and in Europe"). A hinge (the cut falls at "of" in one statement) allows the move anywhere: "speed
    of content ingestion" is "content ingestion speed". Fitted on PAWS-Wiki dev; without seams every cut is
    allowed."""
    if seq_a == seq_b:
        return True
    if len(seq_a) != len(seq_b) or Counter(seq_a) != Counter(seq_b):
        return False
    n = len(seq_a)
    prefix = next((k for k in range(n) if seq_a[k] != seq_b[k]), n)
    suffix = next((k for k in range(n) if seq_a[n - 1 - k] != seq_b[n - 1 - k]), n)
    for p in range(prefix, -1, -1):
        for q in range(min(suffix, n - p), -1, -1):
            mid_a, mid_b = seq_a[p:n - q], seq_b[p:n - q]
            for k in range(1, len(mid_a)):
                if mid_a[k:] + mid_a[:k] != mid_b:
                    continue
                in_a = seams_a is None or p + k in seams_a
                in_b = seams_b is None or p + len(mid_a) - k in seams_b
                hinged = p + k in hinges_a or p + len(mid_a) - k in hinges_b
                if (in_a and in_b) or ((in_a or in_b) and (p == 0 or q == 0)) or hinged:
                    return True
    return False


def unaligned(a: Parsed, b: Parsed, redundant: frozenset[str]) -> str | None:
    """Every content word must find its counterpart; hedges and words that restate a shared category may not."""
    only_a = sorted(a.words - b.words - _SOFT - redundant)
    only_b = sorted(b.words - a.words - _SOFT - redundant)
    if not only_a and not only_b:
        return None
    sides = [f"only {name} has {_listing(parsed, only)}" for name, parsed, only in (("a", a, only_a), ("b", b, only_b))
             if only]
    return f"words not aligned: {'; '.join(sides)}"


def named_differences(a: str, b: str, categories_a: list[str], categories_b: list[str]) -> list[tuple[str, str]]:
    """(detector, reason) for every decisive difference the deterministic judge sees, most telling first."""
    pa, pb = (parse(text) for text in _join_compounds(a, b))
    shared_categories = tuple(sorted(set(categories_a) & set(categories_b)))
    found = [
        ("category", category_conflict(categories_a, categories_b)),
        ("number", number_difference(pa, pb)),
        ("negation", negation_difference(pa, pb)),
        ("artifact", artifact_difference(pa, pb)),
        ("direction", direction_difference(pa, pb)),
        ("temporal", temporal_difference(pa, pb)),
        ("modality", modality_difference(pa, pb)),
        ("causal", causal_difference(pa, pb)),
        ("unaligned", unaligned(pa, pb, _category_words(shared_categories))),
        ("order", order_difference(pa, pb)),
        ("role", role_difference(pa, pb)),
    ]
    return [(name, reason) for name, reason in found if reason]


def differences(a: str, b: str, categories_a: list[str], categories_b: list[str]) -> list[str]:
    """Every decisive difference the deterministic judge sees, most telling first (empty: a paraphrase)."""
    return [reason for _, reason in named_differences(a, b, categories_a, categories_b)]


def _join_compounds(a: str, b: str) -> tuple[str, str]:
    """Open and closed compounds are one word: "up front" in one statement and "upfront" in the other."""
    def join(side: str, other: str) -> str:
        closed = set(re.findall(r"[a-z]+", other.lower()))
        words = re.findall(r"[A-Za-z]+", side)
        for first, second in zip(words, words[1:]):
            if (first + second).lower() in closed:
                side = re.sub(rf"\b{first}[\s-]+{second}\b", first + second, side)
        return side
    return join(a, b), join(b, a)


# --------------------------------------------------------------------------- judges

def passes_blocker(cosine: float, categories_a: list[str], categories_b: list[str],
                   threshold: float = BLOCKER_THRESHOLD) -> bool:
    """Whether the blocker sends a pair to the judge: close enough in embedding space and a category in common."""
    return cosine >= threshold and bool(set(categories_a) & set(categories_b))


def judge_pair(a: str, b: str, categories_a: list[str], categories_b: list[str], cosine: float,
               min_cosine: float = MIN_COSINE) -> Verdict:
    """The built-in judge: merge a token-aligned paraphrase with no decisive difference, else refuse."""
    return judge_pair_with_rule(a, b, categories_a, categories_b, cosine, min_cosine)[0]


def judge_pair_with_rule(a: str, b: str, categories_a: list[str], categories_b: list[str], cosine: float,
                         min_cosine: float = MIN_COSINE) -> tuple[Verdict, str]:
    """judge_pair and the rule that decided: "canonical" or "aligned" for a merge, else the refusing detector
    (category, number, negation, ..., order, role) or "cosine"."""
    conflict = category_conflict(categories_a, categories_b)
    if conflict:  # the same words about another industry or region are another claim
        return Verdict(False, f"not merged: {conflict}", "deterministic"), "category"
    if canonicalize(a) == canonicalize(b):
        return Verdict(True, "merged: identical after canonicalization", "deterministic"), "canonical"
    found = named_differences(a, b, categories_a, categories_b)
    if found:
        rule, reason = found[0]
        return Verdict(False, f"not merged: {reason}", "deterministic"), rule
    if cosine < min_cosine:
        return Verdict(False, f"not merged: cosine {cosine:.2f} below {min_cosine:.2f}", "deterministic"), "cosine"
    numbers = "numbers equal" if parse(a).quantities else "no numbers"
    return Verdict(True, f"merged: token-aligned paraphrase (cosine {cosine:.2f}, {numbers}, "
                         "no negation/order/artifact difference)", "deterministic"), "aligned"


def judge_command(command: list[str], a: dict, b: dict, timeout_s: float) -> Verdict:
    """External judge: run `command` (a list, NO shell) with the pair as JSON on stdin ({"a": {...}, "b": {...}}),
    expect {"same": bool, "reason": str} on stdout; timeout, non-zero exit, malformed JSON, wrong types, an answer
    over MAX_ANSWER_BYTES or nested deeper than MAX_ANSWER_DEPTH => Verdict(False, "<why>", "command")."""
    def refuse(why: str) -> Verdict:
        return Verdict(False, f"not merged: judge command {why}", "command")

    if not isinstance(command, list) or not command or not all(isinstance(part, str) for part in command):
        return refuse("is not a non-empty list of strings")
    done = run_bounded(command, input=json.dumps({"a": a, "b": b}), timeout_s=timeout_s, max_output=MAX_ANSWER_BYTES)
    if done.outcome == "timeout":
        return refuse(f"timed out after {timeout_s:g}s")
    if done.outcome == "too_large":
        return refuse(f"printed {done.detail}")
    if done.outcome != "exited":
        return refuse(f"could not run ({done.detail})")
    if done.returncode != 0:
        return refuse(f"exited with status {done.returncode}")
    text = done.stdout.decode("utf-8", "replace")
    if json_deeper_than(text, MAX_ANSWER_DEPTH):
        return refuse(f"answered JSON nested deeper than {MAX_ANSWER_DEPTH} levels")
    try:
        answer = json.loads(text)
    except (ValueError, RecursionError, MemoryError):  # the depth guard makes the last two unlikely, not impossible
        return refuse("printed malformed JSON")
    if not isinstance(answer, dict) or not isinstance(answer.get("same"), bool) \
            or not isinstance(answer.get("reason"), str):
        return refuse('answered without {"same": bool, "reason": str}')
    reason = " ".join(answer["reason"].split())[:500] or "(no reason given)"
    return Verdict(answer["same"], f"{'merged' if answer['same'] else 'not merged'}: {reason}", "command")


# a JSON string (possibly unterminated), or one bracket; the unrolled string loop stays linear on any input
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def json_deeper_than(text: str, limit: int) -> bool:
    """Whether TEXT opens more than LIMIT arrays/objects inside each other (brackets in strings do not count).

    A cheap guard before json.loads, whose recursive decoder fails on deep input; stops at the first excess."""
    if text.count("[") + text.count("{") <= limit:  # every real answer: one flat object
        return False
    depth = 0
    for token in _JSON_NESTING.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False
