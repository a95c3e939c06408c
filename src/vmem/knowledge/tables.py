"""The merge judge's word tables: abbreviations, synonyms, stop words, role and marker words, lexicons of
direction, modality and named artifacts, number words and units. Plain data; see judge.py for how they are used.

Provenance: written by hand for vmem (general English and sales/support/data vocabulary), tuned against the
team's dev pairs (tests/data/merge_pairs_dev.jsonl); role words and seams measured on PAWS-Wiki dev;
the grammar words of the structure checks (be, articles, participles, compass) are general English. Nothing here
names a specific customer, pair or statement.
"""

from __future__ import annotations

from math import gcd


# Kept small and general: equivalences any reader of sales, support or data notes
# would accept. Nothing here names a specific customer, pair or statement.

# Multi-word forms collapse onto one token so that "data processing agreement" and
# "DPA" align and count as the same named artifact.
PHRASES: dict[str, tuple[str, ...]] = {
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
WORDS: dict[str, str] = {
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

STOP = frozenset("""
a an the of in on at onto via through per as is are was were be been being
am has have had having do does did doing will would shall should can could may might must it its they
them their theirs themselves we us our ours ourselves you your he she his her this that these those
there here who whom whose which what where how whether or either and s t also too just very really
actually quite simply even already indeed there's over up own during plus
""".split())

# Function words that carry roles and clause structure. They need no counterpart (so "in APAC" and
# "APAC" align), but when both statements use one, its position relative to the shared words counts:
# "filter events by session" is not "filter sessions by event", "X because Y" is not "Y because X".
MARKERS = {
    "to": "~to", "from": "~from", "by": "~by", "for": "~for", "with": "~with", "into": "~into",
    "if": "~when", "when": "~when", "whenever": "~when", "once": "~when",
    "because": "~because", "since": "~because", "so": "~so", "therefore": "~so", "thus": "~so",
    "hence": "~so", "consequently": "~so", "then": "~then", "but": "~but", "while": "~while",
    "whereas": "~while", "although": "~while", "though": "~while",
}

# Words that give the phrase after them a role: "from X to Y", "X by Y", "X rather than Y" (rewritten "vs").
# Two statements that attach the same shared word to different roles say different things.
ROLE_WORDS = {
    "from": "from", "to": "to", "into": "to", "by": "by", "of": "of", "than": "than", "before": "before",
    "after": "after", "over": "over", "between": "between", "vs": "vs",
}

# Unmatched on one side only, these hedge or connect and do not change the claim.
SOFT_WORDS = frozenset("""
usually about roughly approximately around circa nearly almost typically out down
""".split())

NEGATION = "not"
MODAL_CAN = frozenset({"can", "could", "may", "might"})
MODAL_MUST = frozenset({"must", "should", "shall"})

# Comparative direction: a pair whose signs differ says opposite things.
UP_WORDS = frozenset("""
higher more increase raise rise grow spike surge jump longer faster better greater double inflate
overstate exceed expand boost lengthen extend improve
""".split())
DOWN_WORDS = frozenset("""
lower less fewer decrease reduce drop fall decline shrink shorter shorten slower worse halve half cut
understate undercount deflate lessen diminish
""".split())

# Named artifacts, standards, roles and places: a difference here is always decisive.
ARTIFACTS = frozenset("""
dpa baa msa nda sla sow rfp sso scim saml rbac mfa nrr grr arr mrr acv ltv cac qoq mom yoy tco roi poc
rca qbr csat nps ae se csm po smb onprem hipaa gdpr ccpa pci hitrust fedramp soc iso api sdk crm erp usd
eur gbp utc cfo cio cto ciso coo ceo vp itdept eu uk usa apac emea latam dach anz nz australia canada
germany france japan india brazil nordic kpi saas
""".split())

PLACES = frozenset("australia canada germany france japan india brazil nordic".split())

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}

# Exact ratios (numerator, denominator) in lowest terms: a quantity's key must not depend on rounding
# ("12 months" is "1 year"). Plain tuples, not fractions.Fraction, whose import (decimal, numbers) costs ~4 ms
# of every proposal that names a number.
Ratio = tuple[int, int]


def ratio(numerator: int, denominator: int = 1) -> Ratio:
    common = gcd(numerator, denominator)
    return numerator // common, denominator // common


def times(a: Ratio, b: Ratio) -> Ratio:
    return ratio(a[0] * b[0], a[1] * b[1])


_MONTH = ratio(1461, 48)  # days in an average month, so 12 months make a year of 365.25 days
TIME_UNITS: dict[str, tuple[str, Ratio]] = {
    "second": ("d", ratio(1, 86400)), "sec": ("d", ratio(1, 86400)),
    "minute": ("d", ratio(1, 1440)), "min": ("d", ratio(1, 1440)),
    "hour": ("d", ratio(1, 24)), "hr": ("d", ratio(1, 24)),
    "day": ("d", ratio(1)), "week": ("d", ratio(7)), "month": ("d", _MONTH),
    "quarter": ("d", times(ratio(3), _MONTH)), "year": ("d", times(ratio(12), _MONTH)),
    "yr": ("d", times(ratio(12), _MONTH)), "decade": ("d", times(ratio(120), _MONTH)),
    "businessday": ("bd", ratio(1)), "businessweek": ("bd", ratio(5)),
}
UNIT_FORMS = {u + suffix: u for u in TIME_UNITS for suffix in ("", "s")}
MONEY_UNITS = {"dollar": "$", "dollars": "$", "usd": "$", "cent": "c", "cents": "c", "euro": "€", "euros": "€",
                "eur": "€", "pound": "£", "pounds": "£", "gbp": "£"}
PERCENT = {"percent", "pct", "percentage"}

CONTRACTIONS = [
    (r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"\bshan't\b", "shall not"),
    (r"\b(\w+)n't\b", r"\1 not"), (r"\b(it|that|there|what|here)'s\b", r"\1 is"),
    (r"\blet's\b", "let us"), (r"'re\b", " are"), (r"'ve\b", " have"), (r"'ll\b", " will"),
    (r"'d\b", " would"), (r"\bi'm\b", "i am"),
    # the possessive stays visible to the structure checks ("X's son Y" is not "X, son of Y") as a sentinel word
    (r"(\w) ?'s\b", r"\1 qqposs "), (r"(\w)s'(?=\s|$)", r"\1s qqposs "),
]

# Grammar words the structure checks read (detectors.py): they find the passive voice, relation nouns, the
# argument of a compass direction. General English, not fitted to any data set.
BE = frozenset("is are was were be been being".split())
ARTICLES = frozenset("the a an".split())
# Irregular past participles (the regular ones end in -ed): "was built by", "is held by".
PARTICIPLES = frozenset("""
made built sold bought sent held led won written taken given known seen found brought paid run chosen told
caught taught thought begun drawn driven eaten fallen felt fought forgotten frozen gotten hidden hit hurt kept
laid left lent lost meant met put read ridden rung risen said set shaken shot shown shut spent spoken stolen
struck sung sworn thrown understood woken worn beaten become bound born borne broken bred cast cut dealt dug
fed flown forbidden forgiven grown hung heard let lit overcome overseen overtaken overthrown sought split
spread stood swept upheld withdrawn
""".split())
# Compass directions: "to the east is A ... to the south is B" assigns each place to one direction.
COMPASS = frozenset("""
north south east west northeast northwest southeast southwest northern southern eastern western
northeastern northwestern southeastern southwestern
""".split())
