"""What a question asks, and whether recall's live hits answer all of it (issue 44; SPEC 8's covered / partial /
uncovered).

A question is read into its asks: its parts ("which timestamp do refunds use, and how late does it land?" is two),
the kind of detail it asks for (an amount, a duration, a time, a column or table) and the qualifiers an answer
must name (a percentile or a worst case, a segment, a region, a stage). A hit on the subject that leaves a part
or the asked detail unanswered makes the answer `partial`, naming what is missing; a hit that shares the
question's topic words but misses its distinctive ones does not make it `covered`. Plain regular expressions
over the question and the hits' statements: deterministic, explainable, microseconds.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping, NamedTuple

_WORD = re.compile(r"[a-z0-9][a-z0-9_.'-]*")
NONE: Mapping[str, list[str]] = MappingProxyType({})  # no customers known
# words a question carries that say nothing about what it is about
_FUNCTION = frozenset("""a an the and or but of to in on at by for with from as is are was were be been being it its
this that these those do does did doing how what which who whom when where why can could should would may might must
will shall we our us i my me you your they their them he she his her there here than then so if not no any all each
also well much many long often tell know get got use used using there's what's whats it's its does's per about into
over under after before between vs versus via just still ever yet only one ones please need want like work works
""".split())
_SPLIT = re.compile(r"\s*(?:,?\s+and\s+(?=(?:how|what|which|when|where|who|why|is|are|do|does|can|should|did)\b)"
                    r"|,?\s+(?:and\s+)?also\s+|,?\s+as well as\s+|\s+\+\s+|\?\s+(?=\S)|;\s+|\s+[-—–]+\s+(?:and\s+)?"
                    r"(?=(?:how|what|which|when|where|who|why|is|are|do|does|can|should|also)\b))", re.I)

# two things asked about together ("refunds and chargebacks", "SMB or mid-market"): single content words
COORDINATED = re.compile(r"\b([a-z][a-z0-9_-]{2,})\s+(?:and|or|&)\s+([a-z][a-z0-9_-]{2,})\b(?!\s+(?:how|what|which|when|"
                          r"where|who|why|is|are|do|does)\b)")
# what joins clauses, not things: "a customer or something else", "keep it or drop it", "two or three", "and already"
_NOT_A_THING = frozenset("""something anything everything nothing someone anyone everyone somewhere anywhere both either
neither all none one two three four five six seven eight nine ten already still just even also then too else more less
""".split())
_OBJECT_AFTER = re.compile(r"\s+(?:it|them|him|her|us|me)\b")


def coordinated(question: str) -> list[tuple[str, str]]:
    """The two things QUESTION asks about together (COORDINATED), less the pairs where "and" or "or" joins clauses:
    a word that is no thing (something, two, already), an adverb, or a verb with a pronoun after it ("keep it in the
    metrics or drop it")."""
    text = question.lower()
    out = []
    for found in COORDINATED.finditer(text):
        left, right = found.groups()
        if {left, right} & _NOT_A_THING or any(w.endswith("ly") for w in (left, right)) or \
                _OBJECT_AFTER.match(text, found.end()):
            continue
        out.append((left, right))
    return out


HOW_MANY = re.compile(r"\bhow many ([a-z0-9-]+)(?: ([a-z-]{3,}))?\b")
_TIME_UNITS = frozenset("second minute hour day week month quarter year".split())
# codes and acronyms: a letter-digit name (P4, v3, Q3, FY24, SOC2) or a word in capitals (CSAT, NPS)
ASKED_CODE = re.compile(r"(?<!\d[.,])\b(?!\d+(?:st|nd|rd|th|yrs?|mos?|wks?|hrs?|mins?|secs?|ms|am|pm|[dhkmswx])\b|[pP]\d\d\b)"
                        r"(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,6}\b|"
                   r"\b(?!(?:UTC|GMT|CET|CEST|EST|EDT|PST|PDT|USD|EUR|GBP|CHF|JPY|API|SQL|URL|CSV|JSON|XML|PDF|"
                   r"ETL|ELT|SDK|CLI|DAG|SSO|FAQ|UI|UX|ID|IDS|SELECT|FROM|WHERE|JOIN|LEFT|RIGHT|INNER|OUTER|FULL|CROSS|CASE|"
                   r"WHEN|THEN|ELSE|END|GROUP|ORDER|HAVING|LIMIT|UNION|DISTINCT|COUNT|SUM|AVG|MIN|MAX|AND|NOT|NULL|WITH|"
                   r"CAST|USING|INSERT|UPDATE|DELETE|MERGE|OVER|DATE|TRUNC)\b)[A-Z]{3,6}\b")
# (an ordinal is a position and a number with a unit a quantity ("3yr", "30d", "10k"), not a name, nor is the tail of
# a decimal ("4M" of "$12.4M", "3pts" of "0.3pts"), a time of day ("8am") or a percentile ("p95": a qualifier, read
# by QUALIFIERS); a currency or time zone is a unit, and a format, an interface or an SQL keyword (API, CSV, LEFT JOIN,
# CASE WHEN) a word of the trade: none is what the question is about. Two capitals are too often a word: ID, EU.)
# a question about the past: the live answer may be its revision, not its answer
HISTORICAL = re.compile(r"\bbefore (?!the |a |an |it |we |they |you )\w|\bused to\b|\bpreviously\b|"
                        r"\boriginally\b|\bin the past\b|\bformerly\b|\bthe old\b|\bwhen (?:\S+ ){0,3}was\b|"
                        r"\bback when\b|\b(?:did|was|were) (?:\S+ ){0,6}?(?:last|take|took|use|run|have)\b", re.I)
DETAILS = {  # the kind of answer a question asks for: the words that ask it
    "duration": re.compile(r"\bhow (?:long|late|soon|quickly|fast|much later|many (?:days|hours|weeks|months|minutes|"
                           r"years|business days))\b|\b(?:lag|delay|latency|turnaround|ttl|retention period)\b.*\?",
                           re.I),
    "amount": re.compile(r"\bhow (?:many|much|big|large|high|low)\b|\bwhat (?:percent(?:age)?|share|rate|ratio|number|"
                         r"threshold|cutoff|cut-off|limit|cap|minimum|maximum|amount|price|fee|discount|size)\b|"
                         r"\bwhich (?:threshold|cutoff|limit)\b", re.I),
    # "when does X count as Y" asks a condition, not a time: "when" asks a date with an event verb
    "date": re.compile(r"\bwhen (?:\w+ ){1,6}?(?:start|starts|begin|begins|end|ends|run|runs|land|lands|close|"
                       r"closes|open|opens|refresh|refreshes|reset|resets|happen|happens|arrive|arrives|renew|renews|"
                       r"expire|expires|due|sent|send|go out|goes out|cut off|lock|locks)\b|\b(?:what|which) "
                       r"(?:day|date|month|week|quarter|weekday)s?\b", re.I),
    "clock": re.compile(r"\b(?:at|by|until) what time\b(?! ?zone)|\bwhat time\b(?! ?zone)|\bwhat hour\b|"
                        r"\btime of day\b", re.I),
    "zone": re.compile(r"\b(?:what|which) time ?zones?\b", re.I),
    "path": re.compile(r"(?:\b(?:which|what)|\b(?:need|want|send me|give me|looking for) (?:the|a|an)) (?:\w+ )?"
                       r"(?:directory|folder|path|bucket|url|endpoint|address|channel|inbox|host|hostname|port|server)s?\b",
                       re.I),
    "format": re.compile(r"\b(?:which|what) (?:file |export |data )?(?:format|file type|extension|encoding)s?\b", re.I),
    "column": re.compile(r"\b(?:which|what) (?:column|field|table|timestamp|key|view|model|source)\b", re.I),
    # a person to reach, not a team that owns it ("who is our named contact"; "who owns the renewal" is answered by
    # "their procurement office")
    "contact": re.compile(r"\b(?:named|direct|main|primary|point of) contact\b|\bwho (?:is|are|'s) (?:our|the|their) "
                          r"(?:\w+ ){0,2}(?:contact|person|representative)s?\b|\b(?:which|what) (?:person|contact)\b",
                          re.I),
}
_ANSWERS = {  # what in a statement answers that kind of detail
    "duration": re.compile(r"\b(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                           r"fifteen|twenty|thirty|forty|sixty|ninety|a|an|half an?)[\s-]+(?:business[\s-]+|calendar[\s-]+|"
                           r"working[\s-]+)?(?:second|minute|hour|day|week|month|quarter|year)s?\b|\b(?:same|next)[\s-]day\b|"
                           r"\bovernight\b|\bwithin \w+\b|\b\d+\s?(?:h|d|m|min|ms|s)\b", re.I),
    "amount": re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                         r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|half|double|twice|"
                         r"triple|none|zero|all)\b|%", re.I),
    "date": re.compile(r"\b\d{4}-\d\d|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|"
                       r"apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|"
                       r"dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|daily|weekly|monthly|"
                       r"quarterly|annually|yearly|nightly|first|last|end of|start of|beginning of|week \d+|day \d+|"
                       r"business days?|date|day of|on the day)\b", re.I),
    "clock": re.compile(r"\b\d{1,2}:\d\d\b|\b\d{1,2}\s?(?:am|pm)\b|\bnoon\b|\bmidnight\b", re.I),
    "zone": re.compile(r"\b(?:utc|gmt|cet|cest|est|edt|pst|pdt|local time|time ?zone of|[a-z]+/[a-z_]+)\b", re.I),
    "path": re.compile(r"(?:^|\s)/[\w.-]+/|\b[a-z0-9]+://\S+|\b[\w.-]+/[\w.-]+/|#[a-z][\w-]+|\b[\w.+-]+@[\w-]+\.|"
                       r"\b[a-z0-9-]+(?:\.[a-z0-9-]+){2,}(?::\d{2,5})?\b|\bport \d{2,5}\b", re.I),
    "column": re.compile(r"`[^`]+`|\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_]+\.[a-z_][a-z0-9_]*\b"),
    "format": re.compile(r"\b(?:csv|tsv|parquet|jsonl?|xml|xlsx|excel|pdf|avro|orc|gzip|zip|utf-?8|ascii|latin-?1)\b", re.I),
    # an address, a handle or a phone number reaches a person (a name alone is what de-identification removes)
    "contact": re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+|(?<![\w@])@[a-z][\w.-]+|\+?\d[\d ()-]{7,}\d", re.I),
}
# qualifiers: a specific statistic, segment, region or stage the answer must name (each group: its words)
QUALIFIERS = (
    ("worst case", r"worst[\s-]case|worst|maximum|max|longest|slowest|at most|up to|p99|99th|ceiling|peak"),
    ("percentile", r"p\d\d|\d\dth percentile|percentile"),
    # (a statement with no qualifier states the typical case: "typically", "usually", "on average" ask nothing more)
    ("median", r"median|p50|50th"),
    ("minimum", r"minimum|(?<!\d )(?<!\d)min|shortest|fastest|at least|floor"),  # ("3 min" is a unit)
    ("segment", r"by segment|per segment|each segment|enterprise|mid[\s-]?market|smb|self[\s-]?serve|"
                r"small business"),
    ("region", r"by region|per region|each region|emea|apac|amer|north america|latam"),
    ("channel", r"by channel|per channel|each channel|on chat|by chat|over chat|by phone|on the phone"),
    ("method", r"by (?:payment )?method|per (?:payment )?method"),
    ("platform", r"mobile|ios|android|ipad|tablet|desktop app"),  # (the web is what a statement means by default)
)
# qualifiers whose words are one another's synonyms (an answer may use any); for the others the answer must use the
# question's own word (SMB is not enterprise), or, asked "by X", name any X
_SYNONYMOUS = frozenset({"worst case", "percentile", "median", "minimum"})
_QUALIFIER_ASKED = [(name, re.compile(rf"\b(?:{words})\b", re.I)) for name, words in QUALIFIERS]
# a statistic named exactly is answered by itself (or its other names), not by its kin: a median is no average
_MEDIAN = re.compile(r"\bmedian\b|\bp50\b|\b50th\b", re.I)
_EXACT_STATISTIC = {"median": _MEDIAN, "p50": _MEDIAN, "50th": _MEDIAN}


def words(text: str) -> set[str]:
    """Content words, lower case, a plural -s and a possessive dropped."""
    out = set()
    for w in _WORD.findall(text.lower().replace("`", " ")):
        w = w.strip(".'-")
        if w.endswith("'s"):
            w = w[:-2]
        if w in _FUNCTION:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        if w and w not in _FUNCTION:
            out.add(w)
    return out


class Asks(NamedTuple):
    parts: list[str]  # the question's parts (one, or the ones it joins)
    part_words: list[set[str]]
    details: list[str]  # the kinds of detail asked: duration, amount, time, column
    qualifiers: list[str]  # names from QUALIFIERS the answer must state


# a question opened by what the asker is doing ("DAU query — do token_refresh events count?", "Ashgrove QBR prep: which
# month ..."): the clause before a dash or colon is context, not an ask, when it is no question and what follows is
_QUESTION_START = re.compile(r"^(?:(?:and|so|then|but|also|on|in|at|for|by|from|to|with|of|since|until)\s+)?"
                             r"(?:how|what|what's|whats|which|when|where|who|whom|whose|why|is|are|was|were|do|does|"
                             r"did|can|could|should|would|will|must|may|has|have|if|any|tell|show|give|list)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)'\"][.!?])\s+(?=\S)")
_CONTEXT_MARK = re.compile(r"\s+[-—–]+\s+|\s*[—–]\s*|:\s+")


def ask_of(question: str, sentences: bool = False) -> str:
    """QUESTION without the context it opens with (SENTENCES: first the sentences before its first question
    sentence, "GDPR request from a French customer. Are those rows still kept?"; then the clause before its last
    dash or colon that is no question, followed by one that is); the question itself when it has none."""
    text = " ".join(question.split())
    if sentences:
        told = _SENTENCE_END.split(text)
        for n, sentence in enumerate(told[1:], 1):
            if sentence.endswith("?") or _QUESTION_START.match(sentence):
                if not any(s.endswith("?") or _QUESTION_START.match(s) for s in told[:n]):
                    text = " ".join(told[n:])  # (a question asked over several sentences keeps them all)
                break
    for mark in reversed(list(_CONTEXT_MARK.finditer(text))):
        before, after = text[:mark.start()], text[mark.end():]
        if "?" in before or _QUESTION_START.match(before) or not _QUESTION_START.match(after):
            continue
        if len(words(after)) >= 2:
            return after
    return text


def asked_codes(question: str, entity_names: Mapping[str, list[str]] = NONE) -> list[str]:
    """The codes and acronyms QUESTION asks about (ASKED_CODE), once each, in its ask: the context it opens with
    ("Ashgrove QBR prep: which month ...") says what the asker is doing, not what the answer must name. A code that
    names one of ENTITY_NAMES' customers ("MRDL") is the customer's name: customers_unanswered checks it."""
    called = set(customers(question, entity_names).values()) if entity_names else set()
    return [c for c in dict.fromkeys(ASKED_CODE.findall(ask_of(question, sentences=True))) if c not in called]


# "what's the fee", "whats the amount", "which is the column": the question word, a copula and an article before the
# thing asked; read as "what fee", "what amount", "which column" (however it is typed, apostrophe or none)
_COPULA = re.compile(r"\b(what|which)(?:['\u2019]?s| is| are| was| were)(?: (?:the|our|their|its|his|her))?\b", re.I)


def asked_form(text: str) -> str:
    """TEXT with each "what's the" / "which is the" read as "what" / "which", the form the patterns below ask."""
    return _COPULA.sub(r"\1", text)


def read(question: str) -> Asks:
    text = ask_of(question)
    parts = [p.strip(" ?,.") for p in _SPLIT.split(text) if p and len(words(p)) >= 2]
    if len(parts) < 2:
        parts = [text.strip(" ?")]
    text = asked_form(text)
    details = [name for name, asked in DETAILS.items() if asked.search(text)]
    for found in _ASKED_PHRASE.finditer(text):  # "what logo churn rate": a number; "which FX rate table": a table
        kind = "column" if found.group(2).lower() in _TABLE_NOUNS else "amount"
        if kind not in details:
            details.append(kind)
    if "duration" in details and "amount" in details:
        details.remove("amount")  # "how many days": a duration
    qualifiers = [name for name, asked in _QUALIFIER_ASKED if asked.search(text)]
    return Asks(parts, [words(p) for p in parts], details, qualifiers)


# The question's subject: "how are sales commissions calculated", "what discount do nonprofits get". A hit that shares
# the question's topic words but never names its subject answers something else (a near miss): the subject of a
# passive or copular "how" question, or the subject of the clause after "what X do/does ...".
_AUX_BE = r"(?:is|are|was|were)"
_AUX_DO = r"(?:do|does|did|should|can|could|will|would|must|may)"
_PARTICIPLE = re.compile(r"^(?:[a-z-]{3,}ed|shown|known|kept|set|paid|held|made|done|built|sent|spent|taken|given|"
                         r"split|read|written|chosen|drawn|seen|run|cut|put|sold|bought|won|lost|left|brought|"
                         r"caught|taught|found|hidden|broken|frozen|stolen|driven|grown|thrown|begun|counted)$")
_DETERMINER = frozenset("the a an our their its this that these those his her my your each every any all some".split())
_PRONOUN = frozenset("i we you they he she it someone anyone everyone people one".split())
_PREPOSITION = frozenset("""in on at by for with from to of into onto over under after before between across per
via during within without about against toward towards than when if once while so above below beyond""".split())
# heads that name a kind of answer, not what the question is about ("how is the number of seats counted")
_GENERIC_HEAD = frozenset("""number count value amount data thing things way kind type part share rate level list set
total figure result results information info detail details stuff something""".split())
_SUBJECT_FRAMES = (
    # how are X calculated / how should X be shown
    re.compile(rf"^how {_AUX_BE} (?P<np>.+)$"),
    re.compile(rf"^how {_AUX_DO} (?P<np>.+?) be (?P<rest>.+)$"),
    # what discount do X get / which columns are X stored in
    re.compile(rf"^(?:what|which) [a-z0-9_ -]+? (?:{_AUX_DO}|{_AUX_BE}) (?P<np>.+)$"),
    # who owns X / who approves X: what the question is about is the object
    re.compile(rf"^who (?!(?:{_AUX_BE}|{_AUX_DO}|has|was|does)\b)[a-z]+s (?P<np>.+)$"),
    # who has to approve X / who can sign off X: the same, the verb after a modal
    re.compile(r"^who (?:has to|have to|needs? to|must|should|can|may|gets? to|is allowed to) [a-z]+ (?:off |"
               r"out |up )?(?P<np>.+)$"),
)
# a frequency adjective is part of what a phrase names ("quarterly active users"), not an adverb to drop
_FREQUENCY = re.compile(r"^(?:hour|dai|week|month|quarter|year|night|annual)ly$")


def subject(question: str) -> str | None:
    """The noun phrase a question is about, when its form says so plainly (None otherwise): the subject of
    "how is/are X <participle>", "how should X be <participle>" and "what/which Y do/does X <verb>" or "what/which Y
    are X <participle>", the object of "who <verb>s X" (pronouns and generic heads such as "the number" do not
    count). Its last word is the head a hit must name."""
    found = subject_of(question)
    return found[0] if found else None


def subject_of(question: str) -> tuple[str, bool] | None:
    """(subject(QUESTION), whether the phrase's bounds are read from its form -- a participle or a preposition
    after it, the object of "who owns" -- so that every word of it must be named; in "what discount do nonprofits
    get" its last word is only taken to be the verb, and only its head is checked)."""
    text = " ".join(re.sub(r"[?!.,;:()\"]", " ", question.lower()).split())
    for n, frame in enumerate(_SUBJECT_FRAMES):
        found = frame.match(text)
        if not found:
            continue
        after = found.group("np").split()
        passive = n == 0 or (n == 2 and re.match(rf"^(?:what|which) [a-z0-9_ -]+? {_AUX_BE} ", text))
        phrase: list[str] = []
        for w in after:
            if passive and _PARTICIPLE.match(w):
                break
            if w in _PREPOSITION:
                rest = after[len(phrase):]
                if passive and not any(_PARTICIPLE.match(v) for v in rest):
                    return None  # "how is MAU different from DAU": no participle, no plain subject
                break  # "how are refunds on annual plans handled": the subject ends here
            phrase.append(w)
        else:
            if passive:
                return None
        if n == 2 and not passive and after[:1] and after[0] in _PRONOUN:
            # "what method do we use to forecast ARR": what it is for is what the question is about
            purpose = re.match(r"(?:use|used|need) (?:to|for) ([a-z][a-z-]+)", " ".join(after[1:]))
            word = purpose.group(1) if purpose else None
            return (word, True) if word and word not in _FUNCTION and word not in _GENERIC_HEAD else None
        if n == 2 and not passive:
            if any(w in _DETERMINER for w in phrase[1:]):
                return None  # "what metric should open a QBR deck": the first word is the verb, no subject
            phrase = phrase[:-1]  # "what discount do nonprofits get": the last word is the verb
        phrase = [w for w in phrase if w not in _DETERMINER and (not w.endswith("ly") or _FREQUENCY.match(w))]
        if not phrase or phrase[0] in _PRONOUN or phrase[-1] in _GENERIC_HEAD or phrase[-1] in _FUNCTION:
            return None
        return " ".join(phrase), bool(passive) or n >= 3
    return None


def _acronyms(text: str) -> set[str]:
    """The acronyms a text uses (ARR, WAU, NRR), lower case."""
    return {a.lower() for a in re.findall(r"\b[A-Z]{2,6}s?\b", text)}


def names(phrase: str, texts: list[str], whole: bool = False) -> bool:
    """Whether one of TEXTS names the noun phrase PHRASE: its head (WHOLE: and each word that narrows it), each as
    the word itself (a plural, a possessive or a form sharing its first five letters: "refund" and "refunded",
    "dedupe" and "deduplicate") or inside an acronym made of the phrase's initials ("annual recurring revenue" and
    ARR, "weekly active users" and WAU). A segment, region or channel word ("enterprise customers") is left to the
    qualifier check: another segment's answer is a partial one, not an answer to something else."""
    parts = [w for w in re.findall(r"[a-z0-9_]+", phrase.lower()) if w not in _DETERMINER]
    if not parts:
        return True
    for text in texts:
        found = words(text)
        spelled: set[int] = set()  # the phrase's words an acronym of the text stands for
        for acronym in _acronyms(text):
            acronym = acronym.rstrip("s") if len(acronym) > 2 else acronym
            for start in range(len(parts)):
                for end in range(start + 1, len(parts) + 1):
                    if ("".join(w[0] for w in parts[start:end]) == acronym and end - start > 1) or (
                            end - start == 1 and acronym == parts[start]):
                        spelled.update(range(start, end))

        def named(n: int) -> bool:
            word = next(iter(words(parts[n])), None)
            if word is None or n in spelled:
                return True  # a function word says nothing; a word an acronym stands for is named
            # five letters meet "dedupe" and "deduplicate", "refund" and "refunded"; a short word must be the word
            return word in found or (len(word) >= 5 and word[:5] in {w[:5] for w in found}) or any(
                abbreviates(word, w) for w in found)

        # the head and every word that narrows it ("quarterly active users" is not answered by weekly ones)
        checked = [n for n in range(len(parts)) if n == len(parts) - 1 or (whole and not _QUALIFIER_WORD.match(parts[n]))]
        if all(named(n) for n in checked):
            return True
    return False


_QUALIFIER_WORD = re.compile(rf"^(?:{'|'.join(words for _, words in QUALIFIERS)})$", re.I)


def customers(question: str, entity_names: Mapping[str, list[str]]) -> dict[str, str]:
    """The store's entities (customers) QUESTION names, each with the name it is called there, in the order of
    ENTITY_NAMES (each entity id with its name and aliases): the first word of the id
    ("Corvane" for entity:corvane, "Larkspur" for entity:larkspur-health), its name, an alias, or an alias's first
    word ("LHP", "Larkspur Health Partners", "F&S" of "F&S Bank"). A word that is also English ("global" of
    entity:global-retail) names the customer only as a proper noun: capitalised, and not as the question's first
    word; a word English does not have names it however it is typed ("corvane"); a three-letter code only in
    capitals ("LHP")."""
    out = {}
    lowered = question.lower()
    for name in entity_names:
        for form in _forms(name, entity_names[name]):
            if form.lower() not in lowered:  # (a substring test first: stores have many customers)
                continue
            code = len(form) < 4
            for found in re.finditer(rf"(?<![\w-]){re.escape(form)}(?![\w-])", question, 0 if code else re.I):
                word, before = found.group(), question[:found.start()].rstrip()
                if not _english(word) or (word[0].isupper() and before and before[-1] not in ".?!:"):
                    out[name] = word
                    break
            if name in out:
                break
    return out


def _forms(name: str, others: list[str]) -> list[str]:
    """What a customer is called: the first word of its id (four letters or more), and of its name and aliases
    (OTHERS) each whole and its first word: four letters or more, or three with no lower-case letter ("LHP",
    "F&S"); never an address ("acme.example")."""
    forms = [name.split("-")[0]]
    for other in others:
        if re.search(r"[.@/]", other):
            continue
        forms += [other, other.split()[0]]
    return [f for f in dict.fromkeys(forms) if len(f) >= 4 or len(f) == 3 and not re.search(r"[a-z]", f)]


def _english(word: str) -> bool:
    """Whether WORD is a whole word of the bundled model's English vocabulary (a name is not; without the
    vocabulary every word counts as a name, as before)."""
    vocabulary = _vocabulary()
    return vocabulary is not None and word.lower() in vocabulary


def _vocabulary():
    global _VOCABULARY
    if _VOCABULARY is False:
        from vmem import wordpiece
        from vmem.embed import bundled_model_dir

        found = wordpiece.load_cached(bundled_model_dir() / "tokenizer.json")
        _VOCABULARY = found.vocab if found is not None else None
    return _VOCABULARY


_VOCABULARY: object = False  # the model's vocabulary, read on the first question that names an entity's word


def stems(found: set[str]) -> set[str]:
    """Words cut to six letters: "timestamp" and "timestamped", "refund" and "refunded" meet."""
    return {w[:6] for w in found}


def answered_part(part: set[str], statement_words: set[str]) -> bool:
    """A part is answered by a statement holding at least half of its content words (two, for a long part)."""
    if not part:
        return True
    shared = len(stems(part) & stems(statement_words))
    return shared >= max(1, min(2, len(part)), round(len(part) * 0.5))


def near_miss(question: str, hits: list[dict], entity_names: Mapping[str, list[str]] = NONE) -> list[str]:
    """What makes the live HITS answer something other than the question, however many topic words they share
    (each a `missing` entry; [] when none): a customer the question names that no hit is about (the answer, if any,
    is only in another customer's scope), or the question's subject that no hit names ("how are sales
    commissions calculated" answered by a claim on discounts)."""
    texts = [" ".join(filter(None, [h.get("title"), h["statement"]])) for h in hits]
    out = [f"{called[0].upper()}{called[1:]} (nothing live in this scope is about it)"
           for called in customers_unanswered(question, hits, texts, entity_names)]
    about = subject_unnamed(question, texts)
    if about:
        out.append(f"{about} (nothing live names it)")
    return out


def customers_unanswered(question: str, hits: list[dict], texts: list[str],
                         entity_names: Mapping[str, list[str]]) -> list[str]:
    """The name by which QUESTION names each customer that none of HITS (their TEXTS) is about: scoped to it, or
    naming it by any of its names (ENTITY_NAMES: as customers() reads it)."""
    out = []
    for name, called in customers(question, entity_names).items():
        forms = _forms(name, entity_names[name])
        if not any(h.get("scope") == f"entity:{name}" or any(
                re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", t, 0 if len(form) < 4 else re.I) for form in forms)
                for h, t in zip(hits, texts)):
            out.append(called)
    return out


def subject_unnamed(question: str, texts: list[str]) -> str | None:
    """The question's subject (subject_of) when none of TEXTS names it; a code is checked as one (CSAT, P4)."""
    about, whole = subject_of(question) or (None, False)
    codes = {code.lower() for code in asked_codes(question)}
    return about if about and about.split()[-1] not in codes and not names(about, texts, whole) else None


def count_stated(noun: str, texts: list[str]) -> bool:
    """Whether any of TEXTS states a count of NOUN ("4 times", "two NPS points")."""
    counted = re.compile(rf"(?:\d[\d.,]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|"
                         rf"hundred))\s*(?:[a-z-]+\s+){{0,2}}{re.escape(noun[:5])}", re.I)
    return any(counted.search(t) for t in texts)


def part_gaps(question: str, asks: Asks, texts: list[str], hit_words: list[set[str]]) -> list[tuple[str, str]]:
    """(kind, in words) of each detail, narrowing phrase and qualifier a part of the question asks for that the
    hits on that part leave open (kind: detail, phrase, qualifier). The detail a part asks for must be stated where
    its subject is; if no hit holds the part's words, every hit (a paraphrase) is asked."""
    out = []
    for part, part_words in zip(asks.parts, asks.part_words):
        on_part = [t for t, w in zip(texts, hit_words) if answered_part(part_words, w)] or texts
        asked = read(part + "?") if len(asks.parts) > 1 else asks
        for detail in asked.details:
            if not any(states_detail(detail, t, question) for t in on_part):
                out.append(("detail", _DETAIL_MISSING[detail]))
        for phrase, narrowing, modifiers in asked_phrases(part):  # "which FX rate table": a table of FX rates
            if not any(stems(modifiers) & stems(loose_words(t)) for t in on_part):
                out.append(("phrase", f"the {phrase} asked for (nothing live names {narrowing})"))
        for name, found_words in qualifiers_open(part, asked.qualifiers, on_part):
            out.append(("qualifier", f"the {name} asked for ({', '.join(found_words)}) is not stated"))
    return out


def assess(question: str, hits: list[dict], entity_names: Mapping[str, list[str]] = NONE
           ) -> tuple[list[str], str | None, str | None]:
    """(what the question asks that the on-topic live HITS do not answer, why, the kind of gap: "elsewhere" when the
    hits are about something else -- a code or acronym, a customer or a subject the question names that none of
    them does --, "side" when a part or one of two things asked together is left open, else None) -- ([], None,
    None) when they answer all of it. HITS: the live results a covered answer rests on (their statements, titles
    and scopes); ENTITY_NAMES: the store's entity ids, each with its name and aliases.

    Each part is checked against the hits that answer it (the detail a part asks for must be stated where its
    subject is: "which table holds the aggregates" is not answered by a table named in a claim on something
    else), and a detail's answer must be news (the question's own number or column does not answer it)."""
    asks = read(question)
    texts = [" ".join(filter(None, [h.get("title"), h["statement"]])) for h in hits]
    hit_words = [words(t) for t in texts]
    missing: list[str] = near_miss(question, hits, entity_names)
    elsewhere = bool(missing)
    answered_sides: list[str] = []  # the parts and coordinated things the hits answer
    unanswered_sides: list[str] = []
    if len(asks.parts) > 1:
        open_parts = [part for part, part_words in zip(asks.parts, asks.part_words)
                      if not any(answered_part(part_words, w) for w in hit_words)]
        if open_parts and len(open_parts) < len(asks.parts):
            # (all parts open: none stands out; the hits answer the question as a whole or none of it)
            missing.extend(open_parts)
            unanswered_sides.extend(open_parts)
            answered_sides.extend(p for p in asks.parts if p not in open_parts)
    for left, right in coordinated(question):  # "refunds and chargebacks": is each one answered?
        sides = [words(left), words(right)]
        if not all(sides):
            continue
        held = [any(stems(side) & stems(w) for w in hit_words) for side in sides]
        if held.count(True) == 1:
            gap, held_side = (left, right)[held.index(False)], (left, right)[held.index(True)]
            missing.append(f"{gap} (only {held_side} is answered)")
            unanswered_sides.append(gap)
            answered_sides.append(held_side)
    for counted_noun in HOW_MANY.findall(question.lower()):  # "how many NPS points": a number of points
        noun = noun_counted(*counted_noun)
        if noun and "duration" not in asks.details and not count_stated(noun, texts):
            missing.append(f"how many {noun} (no count of {noun} stated)")
    for code in asked_codes(question, entity_names):  # "P4", "v3", "CSAT": the answer must name it too
        if not any(names_code(code, t) for t in texts):
            missing.append(f"{code} (nothing live names it)")
            # a code inside the part or thing the hits leave open is that part's gap ("CTE naming and column
            # aliases", the aliases answered): partial; anywhere else it says the hits are about something else
            if not (answered_sides and any(_near(code, side, question) for side in unanswered_sides)):
                elsewhere = True
    missing.extend(gap for _, gap in part_gaps(question, asks, texts, hit_words))
    missing = list(dict.fromkeys(missing))
    if not missing:
        return [], None, None
    if elsewhere:
        return missing, "the closest live answers are about something else: " + "; ".join(missing), "elsewhere"
    return missing, "the live answers leave part of the question open: " + "; ".join(missing), (
        "side" if unanswered_sides else None)


_DETAIL_MISSING = {"duration": "how long (no duration stated)", "amount": "the number (none stated)",
                   "date": "when (no date or day stated)", "clock": "the time of day (none stated)",
                   "path": "where (no path, address, host or location named)",
                   "format": "which format (none named)", "zone": "the time zone (none named)",
                   "column": "which column or table (none named)",
                   "contact": "who to contact (no address, handle or number named)"}


def noun_counted(first: str, second: str) -> str | None:
    """The noun "how many" counts: "how many NPS points" -> points, "how many users were" -> users; None for a time
    unit (a duration is asked) or a function word."""
    noun = second if second and words(second) and words(first) else first
    base = next(iter(words(noun)), None)
    return None if base is None or base in _TIME_UNITS else noun


def states_detail(detail: str, text: str, question: str) -> bool:
    """Whether TEXT states the kind of DETAIL asked, with something the QUESTION does not already say (its own
    number or column is no answer). A date asked from a date the question gives ("kicked off Nov 16: when does it
    end?") is answered by a duration (the rule applied to the case: "pilots last 30 days")."""
    if detail == "date" and _DAY_GIVEN.search(question) and states_detail("duration", text, question):
        return True
    asked_numbers = set(re.findall(r"\d+(?:[.,]\d+)?", question))
    asked = question.lower()
    for found in _ANSWERS[detail].finditer(text):
        value = found.group().strip().lower()
        numbers = re.findall(r"\d+(?:[.,]\d+)?", value)
        if numbers:
            if not set(numbers) <= asked_numbers:
                return True
        elif not re.search(r"[_./`@]", value) or not re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", asked):
            return True  # a word of its kind ("daily", "the invoice date") answers even if the question uses it
    return False


# a day the question gives: a calendar date, today, a weekday
_DAY_GIVEN = re.compile(r"\b\d{4}-\d\d-\d\d\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|"
                        r"\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                        r"\b(?:today|tomorrow|yesterday|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", re.I)


# "which FX rate table", "what logo churn rate", "which amount field": a detail noun with the words that narrow it
_ASKED_PHRASE = re.compile(r"\b(?:what|which) ((?:[a-z0-9][a-z0-9_-]* ){1,2})(table|column|field|"
                           r"rate|ratio|threshold|cutoff|limit|cap|fee|price|target)s?\b", re.I)


_TABLE_NOUNS = frozenset("table column field".split())


def asked_phrases(part: str) -> list[tuple[str, str, set[str]]]:
    """The asked-for phrases of PART, the words that narrow each and their content words ("which FX rate table" ->
    ("FX rate table", "FX rate", {fx, rate})); a phrase narrowed only by function words ("what is the rate") is
    left out."""
    out = []
    for found in _ASKED_PHRASE.finditer(asked_form(part)):
        modifiers = words(found.group(1))
        if modifiers:
            out.append((f"{found.group(1)}{found.group(2)}", found.group(1).strip(), modifiers))
    return out


def loose_words(text: str) -> set[str]:
    """words(TEXT) plus the words inside its identifiers ("opportunities.amount_usd": opportunity, amount, usd)."""
    return words(text) | words(re.sub(r"[._]", " ", text))


def qualifiers_open(part: str, asked: list[str], texts: list[str]) -> list[tuple[str, list[str]]]:
    """The qualifiers PART asks for (a worst case, a segment, a channel) that none of TEXTS states."""
    out = []
    for name, pattern in _QUALIFIER_ASKED:
        if name not in asked:
            continue
        said = sorted({m.group(0).lower() for m in pattern.finditer(part)})
        if not said:
            continue
        exact = {w: _EXACT_STATISTIC.get(w) or re.compile(rf"\bp{w[1:3]}\b|\b{w[1:3]}th\b", re.I)
                 for w in said if w in _EXACT_STATISTIC or re.fullmatch(r"p\d\d", w)}
        if exact:  # a statistic named exactly: "the median lag" is not answered by "3 days on average"
            said = [w for w, e in exact.items() if not any(e.search(t) for t in texts)]
            found = not said
        elif name in _SYNONYMOUS or all(w.startswith(("by ", "per ", "each ")) for w in said):
            found = any(pattern.search(t) for t in texts)
        else:
            found = any(any(re.search(rf"\b{re.escape(w)}\b", t, re.I) for w in said) for t in texts)
        if not found:
            out.append((name, said))
    return out


def names_code(code: str, text: str) -> bool:
    """Whether TEXT names CODE: the code itself; for an acronym, words whose initials spell it ("QBR" and
    "quarterly business review"); for letters before a number of two or more digits ("FY27"), a word with the
    first letter's initial right before a number ending in those digits ("fiscal 2027")."""
    if re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text, re.I):
        return True
    numbered = re.fullmatch(r"([A-Za-z]{1,3})(\d{2,4})", code)
    if numbered:
        letters, digits = numbered.groups()
        if re.search(rf"(?<![\w-]){letters}[\s-]?\d*{digits}(?![\w-])", text, re.I):  # "FY2027", "FY 27"
            return True
        for number in re.finditer(r"(?<![\w.,])\d{2,4}\b", text):
            before = re.findall(r"[A-Za-z][\w-]*", text[:number.start()])[-2:]
            if number.group().endswith(digits) and any(w[0].lower() == letters[0].lower() for w in before):
                return True
        return False
    if not code.isalpha() or len(code) < 3:
        return False
    initials = [w[0] for w in re.findall(r"[A-Za-z][\w-]*", text.lower())]
    return code.lower() in "".join(initials) and any(
        "".join(initials[n:n + len(code)]) == code.lower() for n in range(len(initials)))


def abbreviates(short: str, word: str) -> bool:
    """Whether SHORT (three letters or more) is a clipped or contracted form of WORD: its first two letters, the
    rest in order, WORD at least two letters longer ("dash" and "dashboard", "acct" and "account", "stg" and
    "staging", "amt" and "amount")."""
    if len(short) < 3 or len(word) < len(short) + 2 or short[:2] != word[:2]:
        return False
    rest = iter(word[2:])
    return all(letter in rest for letter in short[2:])


def _near(code: str, side: str, question: str) -> bool:
    """Whether CODE sits in SIDE (a part or a coordinated word of QUESTION) or right before it ("CTE naming")."""
    text = question.lower()
    code, side = code.lower(), side.lower()
    if re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", side):
        return True
    return bool(re.search(rf"(?<![\w-]){re.escape(code)}\s+(?:[a-z-]+\s+)?{re.escape(side)}\b", text))
