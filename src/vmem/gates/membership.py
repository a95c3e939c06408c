"""Uniqueness in words: "our only North American hospital-group customer" names the one customer in that group.

Pure functions over a statement and the customers' categories (facet:value). A phrase that says a customer is
the only, sole, single or one of its kind, and describes the kind by category words, names that customer when
exactly one customer holds every category it describes: the category floor's concern, said in words.
"""

from __future__ import annotations

import re

from vmem.lazyre import lazy

# The words people use for common category values, beyond the value's own words ("hospital_group" is "hospital
# group"); an organisation noun ("insurer", "credit union") names a customer without "customer" after it.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    # a country's adjective names its region: "our only German customer" is the region's only one when it has one
    "north_america": ("north american", "north america", "american", "u.s.", "the us", "usa", "united states",
                      "canadian", "canada", "stateside"),
    # the sales regions' codes: AMER is the Americas (a store's category value, as EMEA and APAC are)
    "amer": ("amer", "americas", "the americas", "north american", "north america", "american", "u.s.", "the us",
             "usa", "united states", "canadian", "canada"),
    "latam": ("latin american", "latin america", "latam", "south american", "central american", "mexican",
              "brazilian", "argentine", "argentinian", "chilean", "colombian", "peruvian"),
    "emea": ("emea", "european", "europe", "middle eastern", "middle east", "african", "german", "french",
             "british", "uk", "dutch", "spanish", "italian", "swiss", "austrian", "nordic", "scandinavian",
             "swedish", "norwegian", "danish", "finnish", "polish", "irish", "belgian", "israeli", "emirati"),
    "apac": ("apac", "asia-pacific", "asia pacific", "asian", "asia", "australian", "japanese", "chinese",
             "korean", "indian", "singaporean", "indonesian", "vietnamese", "thai", "malaysian", "filipino"),
    "hospital_group": ("hospital group", "hospital-group", "hospital network", "hospital system", "health system",
                       "hospital", "hospitals", "clinic group"),
    "financial_services": ("financial services", "financial-services", "financial", "fintech", "bank", "credit union",
                           "lender", "banking"),
    "insurance": ("insurance", "insurer", "underwriter"),
    "retail": ("retail", "retailer", "store chain", "chain of stores"),
    "logistics": ("logistics", "freight", "shipping", "trucking", "fleet", "haulage", "courier"),
    "biotech": ("biotech", "biotechnology", "life sciences", "life-sciences", "pharma", "pharmaceutical",
                "biologics"),
    "aerospace": ("aerospace", "aviation", "space", "satellite"),
    "mid_market": ("mid-market", "mid market", "midmarket", "mid-sized", "mid-size"),
    "enterprise": ("enterprise", "large-enterprise", "fortune 500"),
    "smb": ("smb", "small business", "small-business", "small"),
    "healthcare": ("healthcare", "health care", "health", "medical"),
    "manufacturing": ("manufacturing", "manufacturer", "factory", "industrial"),
    "education": ("education", "university", "school", "college"),
    "government": ("government", "public sector", "public-sector", "agency", "municipal"),
}
# a region's own adjective: "our single African customer" is the only one of region:africa, before any wider
# region that uses the same word ("african" is also an EMEA word); data for the regions categories use
REGION_ADJECTIVES: dict[str, tuple[str, ...]] = {
    "africa": ("african", "sub-saharan", "nigerian", "kenyan", "ghanaian", "egyptian", "moroccan", "ethiopian",
               "south african"),
    "europe": ("european", "continental"),
    "asia": ("asian",),
    "middle_east": ("middle eastern", "gulf", "arab", "emirati", "saudi", "qatari"),
    "oceania": ("oceanian", "australian", "new zealand", "kiwi", "pacific"),
    "south_america": ("south american",),
    "latin_america": ("latin american",),
    "nordics": ("nordic", "scandinavian"),
}
CATEGORY_WORDS.update({k: v + CATEGORY_WORDS.get(k, ()) for k, v in REGION_ADJECTIVES.items()})
ORG_NOUNS = frozenset({"insurer", "underwriter", "retailer", "bank", "lender", "credit union", "hospital",
                       "hospitals", "hospital group", "hospital network", "hospital system", "health system",
                       "manufacturer", "university", "school", "college", "agency", "store chain", "fintech"})
CUSTOMER_NOUNS = frozenset("customer client account buyer logo tenant company firm organisation organization org "
                           "chain brand operator provider carrier business".split())
_PLURAL_NOUNS = frozenset("customers clients accounts buyers logos tenants companies firms organisations "
                          "organizations insurers retailers banks lenders unions manufacturers".split())
_SINGULAR_CUSTOMER = frozenset("customer client account".split())
_ON_OUR_BOOKS = lazy(r"\b(?:we (?:sell to|serve|have|work with|support)|on our books|in our base|we've signed|"
                     r"we signed)\b", re.I)
# "our only", "the sole", "our one and only", "exactly one", "just one", "only one ... is a" ("a single insurer
# asked" is one of them, not the only one)
_UNIQUE = lazy(r"(?:\b(?:our|the)\s+(?:one\s+and\s+only|only|sole|single|one|lone)|\b(?:exactly|just|only)\s+one)"
               r"\b(?:\s+(?:of\s+them\s+)?(?:is|was)\s+(?:an?\s+)?)?(?!\s+(?:of|thing|way|time|reason|rule|"
               r"requirement|question|exception|difference|problem|issue|option|choice)\b)", re.I)
# "the mid-market customer we have in EMEA", "the Latin American customer": a definite description of one
# customer names the one customer it fits (a singular customer noun must follow within the phrase)
_DEFINITE = lazy(r"\b(?:the|our)\b(?!\s+(?:only|sole|single|one|lone)\b)", re.I)
# a singular customer noun that is the head of the description, not a modifier ("our logistics customer base")
_SINGULAR_HEAD = lazy(r"\b(?:customer|client|account)\b(?!\s+(?:base|segment|success|support|service|services|"
                      r"experience|journey|count|data|list|churn|retention|facing|portal|team|teams)\b)", re.I)
# a count of a kind: "both of our healthcare customers", "our two North American customers", "all three of our
# energy clients": the count names every customer of that kind when it is how many there are
_COUNTED = lazy(r"\b(?:(?P<both>both)(?:\s+of)?|(?:all\s+)?(?P<n>two|three|four|2|3|4)(?:\s+of)?)\s+(?:our|the)\s+"
                r"(?P<kind>[\w\s.-]{2,40}?)\s*\b(?:customers|clients|accounts|logos|tenants)\b|\bour\s+(?P<n2>two|three|"
                r"four|2|3|4)\s+(?P<kind2>[\w\s.-]{2,40}?)\s*\b(?:customers|clients|accounts|logos|tenants)\b", re.I)
_COUNT = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
# a kind excluded: "that is not an enterprise account", "other than enterprise", "non-enterprise"
_NOT_KIND = lazy(r"^\s*,?\s*(?:(?:that|which|who)\s+(?:is|are|was|were)\s*(?:not|n't)|other than|except|outside"
                 r"|apart from|but not)\s+(?:an?\s+|the\s+)?(?P<kind>[\w\s-]{3,40})", re.I)
_CLAUSE_END = lazy(r"[.;:!?()]|,\s|\s(?:who|which|that|and|but|was|were|is|are|has|had|took|wants|asks|needs|says|"
                  r"insists|(?!united\b)\w{3,}ed)\b", re.I)  # "United States" is no past tense


# "of our enterprise accounts", "among our customers": the set a one is taken from
_PARTITIVE = lazy(r"\b(?:of|among|amongst)\s+(?:all\s+)?(?:our|the)\s+(?P<kind>[\w\s-]{0,40}?)\s*\b(?:customers|"
                  r"clients|accounts|logos|tenants|buyers|companies|firms|organi[sz]ations)\b", re.I)
# what a customer does, said right after the phrase: its noun then names a customer, whatever the noun
_ACTS = frozenset("asked wanted needed requested insisted demanded signed renewed churned chose bought required "
                  "expected preferred approved complained".split())


def _inflections(word: str) -> set[str]:
    """A category word's inflected and derived forms: "agriculture" is also "agricultural", "banking" "bank",
    "education" "educational", "energy" "energies"."""
    if len(word) < 4 or " " in word or "-" in word:
        return {word}
    root = word[:-3] if word.endswith("ing") and len(word) > 6 else word[:-2] if word.endswith("al") else \
        word[:-1] if word.endswith(("e", "y")) else word
    return {word, root, root + "al", root + "ing", root + "s", root + "es", root + "ies", root + "e" + "s",
            word + "s", word + "al"} - {""}


_REGION_CODES = frozenset("emea apac amer latam anz dach mena ssa cee".split())


def _demonym(region: str) -> str | None:
    """The adjective of a region's name, by the rule English forms them: central_asia -> "central asian",
    north_africa -> "north african", europe -> "european", middle_east -> "middle eastern"."""
    words = region.split("_")
    last = words[-1]
    if region in _REGION_CODES:
        return None  # a sales region's code has no adjective
    adjective = last + "n" if last.endswith("a") else last + "an" if last.endswith("ope") else \
        last + "ern" if last in ("east", "west", "north", "south") else None
    return " ".join([*words[:-1], adjective]) if adjective else None


def _phrases(values: set[str], regions: set[str] = frozenset()) -> list[tuple[str, str]]:
    """(phrase, category value) for each value: its own words (and their inflections), the words people use
    for it, and for a region (REGIONS) its adjective, longest first."""
    out = []
    own: dict[str, str] = {}  # a phrase that is a value's own adjective is that value's, not a wider region's
    for value in values:
        for word in REGION_ADJECTIVES.get(value, ()):
            own.setdefault(word, value)
    for value in values:
        words = {value.replace("_", " "), value.replace("_", "-")} | set(CATEGORY_WORDS.get(value, ()))
        if value in regions and _demonym(value):
            words.add(_demonym(value))  # "our single Central Asian account": the adjective whole, read first
        if "_" not in value:
            words |= _inflections(value)
        else:
            # a category of several words is named by its first, distinctive words alone ("public" for
            # public_sector, "financial" for financial_services); its last word says only what kind of
            # category it is (sector, services, group)
            words |= {w for w in value.split("_")[:-1] if len(w) >= 5}
        out += [(w, value) for w in words if len(w) >= 3 and own.get(w, value) == value]
    return sorted(out, key=lambda p: -len(p[0]))


def unique_memberships(text: str, categories: dict[str, tuple[str, ...]]) -> list[tuple[str, tuple[str, ...], str]]:
    """(entity, the categories described, the phrase) for each phrase of TEXT that calls a customer the only one
    of a kind that exactly one customer in CATEGORIES (entity -> facet:value) is."""
    lowered_text = text.casefold()
    counted = _COUNTED.search(text) if categories else None
    if not categories or not _UNIQUE.search(text) and not counted and not (
            ("the " in lowered_text or "our " in lowered_text) and (
                any(n in lowered_text for n in _SINGULAR_CUSTOMER) or _ON_OUR_BOOKS.search(text) or
                any(f" {verb} " in lowered_text for verb in _ACTS))):
        return []
    by_value: dict[str, set[str]] = {}
    for entity, held in categories.items():
        for category in held:
            by_value.setdefault(category.split(":", 1)[-1], set()).add(entity)
    phrases = _phrases(set(by_value), {c.split(":", 1)[1] for held in categories.values() for c in held
                                        if c.startswith("region:")})
    out = _counted(text, phrases, by_value) if counted else []
    markers = [(m, False) for m in _UNIQUE.finditer(text)] + [(m, True) for m in _DEFINITE.finditer(text)]
    for match, definite in markers:
        rest = text[match.end():match.end() + 90]
        end = _CLAUSE_END.search(rest)
        span = rest[:end.start()] if end else rest
        # a partitive names the set the one is taken from, in the span ("the one transit authority among our
        # accounts") or before the marker in its sentence ("Of our enterprise accounts, the only one in APAC"):
        # its noun is the customer noun and its words describe the kind
        partitive = _PARTITIVE.search(span)
        if partitive:
            span = span[:partitive.start()] + " " + partitive.group("kind") + " " + span[partitive.end():]
        elif any(f" {phrase} " in " " + re.sub(r"[^\w\s.-]", " ", span.casefold()) + " " for phrase, _ in phrases):
            # (before the marker only when the span itself narrows the set: "Among our insurance customers, only
            # one asked" is one of them, not the only one of a kind)
            before = re.split(r"[.;!?]", text[max(0, match.start() - 90):match.start()])[-1]
            partitive = list(_PARTITIVE.finditer(before))[-1:] or None
            if partitive:
                partitive = partitive[0]
                span = span + " " + partitive.group("kind")
        # a customer noun may also be known by what it does: "our only energy utility asked ..."
        acting = bool(end) and end.group(0).strip().casefold() in _ACTS
        described, org_noun = _described(span, phrases)
        words = set(re.findall(r"[a-z]+", span.casefold()))
        if definite and not _SINGULAR_HEAD.search(span) and not (
                (org_noun or words & CUSTOMER_NOUNS) and (acting or _ON_OUR_BOOKS.search(text[match.end():]))):
            continue  # ("the Mexican homewares chain we signed", "the Latvian hospital group asked": one customer)
        if words & _PLURAL_NOUNS:
            continue  # "our only insurer customers are in EMEA": all of a kind, not the one
        if not described or not (org_noun or partitive or acting or words & CUSTOMER_NOUNS or
                                 _ON_OUR_BOOKS.search(text[match.end():])):
            continue
        holders = set.intersection(*(by_value[v] for v in described))
        excluded = _NOT_KIND.match(rest[end.start():] if end else "")
        if excluded:  # "the only logistics customer that is not an enterprise account"
            kind = f" {excluded.group('kind').casefold()} "
            for phrase, value in phrases:
                if f" {phrase} " in kind or f" {phrase}s " in kind:
                    holders = holders - by_value[value]
        if len(holders) == 1:
            entity = next(iter(holders))
            out.append((entity, tuple(sorted(described)), (match.group(0) + span).strip()))
    return out


def _described(kind: str, phrases: list[tuple[str, str]]) -> tuple[set[str], bool]:
    """The category values whose words KIND holds (longest phrase first, each read once), and whether one of those
    words is an organisation noun ("insurer"). "co-operative" is also read as "cooperative"."""
    lowered = " " + re.sub(r"[^\w\s.-]", " ", kind.casefold()) + " "
    lowered += lowered.replace("-", "")
    described: set[str] = set()
    org_noun = False
    for phrase, value in phrases:
        if f" {phrase} " in lowered or f" {phrase}s " in lowered:
            described.add(value)
            org_noun = org_noun or phrase in ORG_NOUNS
            lowered = lowered.replace(phrase, " ")
    return described, org_noun


def _counted(text: str, phrases: list[tuple[str, str]], by_value: dict[str, set[str]]) -> list:
    """Every customer of a kind when TEXT counts them and the count is how many hold it: "both of our healthcare
    customers" names both when two customers are in healthcare."""
    out = []
    for match in _COUNTED.finditer(text):
        n = 2 if match.group("both") else _COUNT[(match.group("n") or match.group("n2")).casefold()]
        kind = match.group("kind") or match.group("kind2") or ""
        where = re.match(r"\s+(?:in|from|across)\s+(?:the\s+)?([\w.-]+(?:\s+[\w.-]+)?)", text[match.end():])
        described, _ = _described(kind + " " + (where.group(1) if where else ""), phrases)  # "... customers in EMEA"
        if not described:
            continue
        holders = set.intersection(*(by_value[v] for v in described))
        if len(holders) == n:
            out += [(entity, tuple(sorted(described)), match.group(0).strip()) for entity in sorted(holders)]
    return out


def category_vocabulary(categories: set[str]) -> set[str]:
    """Every word a statement may use for CATEGORIES (facet:value) or the common values: their own words and the
    words people use for them, lower case."""
    values = {c.split(":", 1)[-1] for c in categories} | set(CATEGORY_WORDS)
    words = set()
    for phrase, _ in _phrases(values):
        words.update(re.findall(r"[^\W\d_]+", phrase.casefold()))
    return words
