"""What a person told an agent that a teammate's agent should know (SPEC 16): corrections, definitions and
conventions, confirmations -- found by the turn's place in the conversation and its sentences' shape, offline.

A user turn is read sentence by sentence. A sentence states something durable when it is a general statement
about the work's subject matter: a definitional or generic verb ("means", "excludes", "is in UTC", "lags by"),
a team convention ("we always …", "never join on …", "the rule is …") or a notice ("FYI", "note that"), about
something specific (an identifier, a table or column, a metric, an acronym, a number with its unit). It is set
aside when it is a request for this task (an imperative such as "rename it", "now plot it", "can you …"), a
personal preference ("I prefer shorter answers"), a question, chit-chat, or pasted output (logs, tables, code).
The turn's kind comes from where it stands: a statement opened by a contradiction ("no", "actually", "that's
not …") or setting a word of the assistant's last reply right is a correction; an agreement ("yes, exactly")
with a claim the assistant just made, not with a request for permission, is a confirmation of that claim;
anything else is a definition. The statement is rewritten to stand alone: cues dropped, a leading "it"/"that"
replaced by what the assistant named, a question turned into its answer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from vmem.harvest.transcripts import Session, Turn

KINDS = ("correction", "definition", "confirmation")
MAX_STATEMENT = 400
REPLY_TAIL = 2000  # characters of the assistant's reply a turn is read against


class Found(NamedTuple):
    kind: str
    statement: str
    quote: str  # the person's words it was read from (for a confirmation, also what it confirmed)
    ref: str
    at: str | None
    why: str  # which signals fired, for --json and the tests
    context: str = ""  # the assistant's reply the turn answered (what a drafting model reads with it)


def _words(*alternatives: str) -> str:
    return "|".join(sorted(alternatives, key=len, reverse=True))


# -- sentences -----------------------------------------------------------------------------------------------

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[?\d\d:\d\d:\d\d|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL)\b"
    r"|Traceback \(most recent|\s*File \"|at [\w.$]+\(|[-+|=]{3,}|\$ |>>> |\w+Error:|\w+Exception\b|E\s{2,}"
    r"|(?:\S+\s*\|\s*){2,}|\s{4,}\S|\d+ rows?\b|\(\d+ rows?\))")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|approx|incl|excl|esp|cf|no|fig|jan|feb|mar|apr|jun|jul|aug|sep|"
                           r"sept|oct|nov|dec|mr|mrs|ms|dr|inc|ltd|co)\.$", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+|\s*\n\s*(?:[-*+•]\s+|\d+[.)]\s+)?|(?<=;)\s+")


def sentences(text: str) -> list[str]:
    """TEXT's prose sentences: code blocks, pasted output lines and markdown bullets' markers removed."""
    text = _FENCE.sub("\n", text)
    lines = [line for line in text.splitlines() if not _LOG_LINE.match(line)]
    text = "\n".join(lines)
    out: list[str] = []
    for piece in _SPLIT.split(text):
        piece = (piece or "").strip()
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


# -- signals ---------------------------------------------------------------------------------------------------

# something specific: an identifier in code, snake_case or dotted, an acronym, a number with a unit or a percent
_SPECIFIC = re.compile(
    r"`[^`\n]+`|\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_]+\.[a-z_][a-z0-9_]*\b|\b[A-Z]{2,6}s?\b(?<!\bI)"
    r"|\b\d+(?:[.,]\d+)?\s*(?:%|percent|days?|hours?|hrs?|minutes?|mins?|weeks?|months?|years?|seconds?|ms|"
    r"k|m|bn|gb|mb|tb|rows?|seats?|users?|accounts?|am|pm|utc)\b|[$€£]\s?\d")
# nouns of the work itself: data, metrics, systems, business objects (a general list, not one session's words)
_DOMAIN = re.compile(r"\b(?:" + _words(
    "table", "tables", "column", "columns", "field", "fields", "row", "rows", "schema", "view", "views", "model",
    "models", "metric", "metrics", "dashboard", "dashboards", "report", "reports", "pipeline", "pipelines", "job",
    "jobs", "dag", "dags", "warehouse", "database", "db", "query", "queries", "dataset", "datasets", "source",
    "event", "events", "timestamp", "timestamps", "timezone", "time zone", "date", "dates", "id", "ids", "key",
    "keys", "join", "joins", "partition", "partitions", "snapshot", "snapshots", "refresh", "backfill", "lag",
    "latency", "delay", "revenue", "arr", "mrr", "churn", "retention", "cohort", "cohorts", "customer",
    "customers", "account", "accounts", "user", "users", "seat", "seats", "subscription", "subscriptions",
    "invoice", "invoices", "order", "orders", "refund", "refunds", "payment", "payments", "plan", "plans",
    "contract", "contracts", "renewal", "renewals", "trial", "trials", "fee", "fees", "discount", "discounts",
    "currency", "fiscal", "quarter", "quarters", "month", "months", "week", "weeks", "calendar", "region",
    "regions", "segment", "segments", "tier", "tiers", "sku", "skus", "product", "products", "price", "prices",
    "pricing", "cost", "costs", "budget", "forecast", "target", "targets", "funnel", "conversion", "session",
    "sessions", "campaign", "campaigns", "channel", "channels", "lead", "leads", "opportunity", "pipeline",
    "deal", "deals", "booking", "bookings", "ledger", "balance", "transaction", "transactions", "settlement",
    "chargeback", "chargebacks", "tax", "vat", "shipping", "inventory", "warehouse", "vendor", "vendors",
    "api", "endpoint", "endpoints", "service", "services", "server", "cluster", "bucket", "file", "files",
    "export", "exports", "import", "imports", "feed", "feeds", "sync", "cron", "schedule", "sla", "slo",
    "threshold", "cutoff", "window", "definition", "convention", "rule", "policy", "filter", "flag", "flags",
    "status", "state", "stage", "environment", "prod", "production", "staging", "dev", "test accounts",
    "internal", "duplicate", "duplicates", "dedup", "deduplicated", "null", "nulls", "utc", "timezone",
    "dbt", "airflow", "looker", "snowflake", "bigquery", "redshift", "postgres", "spark", "kafka", "s3",
    "salesforce", "stripe", "hubspot", "zendesk", "jira", "tableau", "excel", "csv", "parquet") + r")\b", re.I)
# a general statement's verb: what something is, means, holds or does
_GENERIC = re.compile(r"\b(?:" + _words(
    "is", "are", "isn't", "aren't", "was", "were", "means", "mean", "refers to", "refer to", "stands for",
    "is defined as", "defined as", "equals", "represents", "represent", "excludes", "exclude", "includes", "include",
    "contains", "contain", "counts", "count", "lags", "lag", "arrives", "arrive", "lands", "land", "refreshes",
    "refresh", "runs", "run", "starts", "start", "ends", "end", "resets", "reset", "uses", "use", "stores", "holds",
    "hold", "has", "have", "doesn't", "don't", "does not", "do not", "can't", "cannot", "won't", "should be",
    "must be", "has to be", "need to be", "needs to be", "comes from", "come from", "belongs to", "maps to",
    "map to", "tracks", "track", "measures", "measure", "covers", "cover", "applies", "apply", "happens",
    "happen", "takes", "take", "gets", "get", "goes", "go", "updates", "changes", "expires", "expire", "settles",
    "settle", "differs", "matches", "match", "lives", "live", "sits", "sit", "equal", "keeps", "drops", "skips",
    "treats", "treat", "calls", "call", "bills", "charges", "books", "recognizes", "recognises", "rounds",
    "converts", "lists", "returns", "reports", "shows", "owns", "own", "requires", "require", "needs",
    "depends on", "relies on", "points to", "pulls from", "reads from", "writes to", "feeds", "ignores",
    "overrides", "replaces", "supersedes", "wins", "triggers", "fires", "fails", "breaks", "double-counts",
    "double counts", "undercounts", "overcounts", "inflates", "duplicates", "say", "says", "kicks off",
    "kick off", "finishes", "completes", "is complete", "are complete") + r")\b|=|->|→", re.I)
# a change that explains the data ("we killed the free plan on March 4th"): who, a change verb, when
_CHANGE = re.compile(
    r"\b(?:\w+|`[^`]+`)\s+(?:\w+\s+)?(?:killed|launched|changed|"
    r"migrated|switched|moved|introduced|deprecated|removed|added|raised|lowered|renamed|replaced|started|stopped|"
    r"sunset|sunsetted|retired|dropped|merged|split|cut over|rolled out|turned off|turned on|backfilled)\b"
    r"[^.]*\b(?:on|in|since|from|as of|after|before|until)\s+(?:\w+\s+)?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec|q[1-4]|fy|last|the)", re.I)
_SPECULATIVE = re.compile(r"\b(?:probably|maybe|perhaps|might|i guess|i suspect|could be|seems|seem to|looks like|"
                          r"no idea|dunno|i wonder|possibly)\b", re.I)
_EPISODIC = re.compile(r"\b(?:today|tonight|yesterday|this (?:morning|afternoon|evening|week)|all week|right now|"
                       r"just now|at the moment|for now|(?:not )?yet|so far|earlier today|last night|this time|"
                       r"for this (?:one|query|chart|report|analysis|pr)|in this (?:case|query|chart|notebook))\b",
                       re.I)
_PERSONAL = re.compile(r"\bmy\b(?!\s+(?:team|company|org|colleagues?|manager|bad|mistake|fault)\b)|"
                       r"\bi (?:meant|mean|said|asked|need|want|was|'m|am|have|had|will|'ll|can|could)\b", re.I)
_CONVENTION = re.compile(
    r"\b(?:we|our team|the team|everyone|everybody|finance|analytics|nobody|no one)\s+(?:always|never|usually|"
    r"generally|typically|only|don't|do not|report|use|count|define|treat|exclude|include|call|measure|compute|"
    r"filter|join|keep|drop|round|bill|charge|book|recognize|recognise|consider|agreed|decided|standardi[sz]ed)\b"
    r"|^(?:always|never|don't ever|do not ever)\b|\b(?:the|our|team's)\s+(?:rule|convention|policy|standard|"
    r"definition|agreement|source of truth)\s+(?:is|says|for)\b|\bby convention\b|\bsource of truth\b"
    r"|\b(?:never|always|don't|do not)\s+(?:use|join|count|trust|include|exclude|sum|average|filter|read|query|"
    r"compare|mix|report)\b|\bis (?:the )?(?:canonical|official|authoritative)\b", re.I)
_NOTICE = re.compile(r"^(?:fyi|note(?: that)?|nb|n\.b\.|heads[- ]up|keep in mind(?: that)?|remember(?: that)?|"
                     r"for (?:future )?reference|for the record|for context|just so you know|btw|by the way|"
                     r"important|pro tip|tip|psa|til)\b[:,]?\s*", re.I)
_TASK_VERB = _words(
    "add", "remove", "delete", "rename", "run", "rerun", "re-run", "fix", "create", "make", "move", "write",
    "rewrite", "update", "change", "try", "show", "plot", "chart", "graph", "push", "commit", "open", "close",
    "revert", "refactor", "undo", "redo", "stop", "continue", "go", "proceed", "start", "restart", "check",
    "look", "find", "search", "print", "list", "give", "send", "post", "paste", "copy", "read", "explain",
    "summarize", "summarise", "format", "lint", "test", "debug", "install", "deploy", "merge", "rebase",
    "split", "combine", "group", "sort", "export", "save", "load", "draft", "build", "compile", "generate",
    "implement", "wrap", "skip", "ignore", "keep going", "retry", "switch", "bump", "pin", "comment",
    "uncomment", "clean", "tidy", "add back", "put", "set", "replace", "drop", "increase", "decrease",
    "reduce", "limit", "cap", "modify", "edit", "tweak", "adjust", "swap", "convert", "fetch", "pull",
    "download", "upload", "share", "email", "ping", "tell", "ask", "let", "let's", "lets", "help", "do",
    "redo", "finish", "double-check", "verify", "confirm", "rename", "extract", "inline", "simplify", "exclude",
    "include", "count", "compute", "calculate", "filter", "join", "sum", "average", "aggregate", "break down",
    "diff", "reconcile", "compare", "map", "tag", "label", "query", "select", "rank", "bucket", "dedupe",
    "normalize", "cast", "parse", "fill", "backfill", "schedule", "trigger", "kick off", "kill", "cancel",
    "refresh", "reload", "ingest", "leave", "hold", "wait", "keep", "use", "hold on", "hang on", "don't", "do not",
    "dont", "never mind", "nevermind", "forget", "scrap", "ignore that", "bring", "take", "pick", "choose",
    "break", "cut", "trim", "rewrite", "annotate", "highlight", "zoom", "filter out", "drop", "sort by")
_TASK = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|cool|great|thanks|good|nice|right|so|and|also|then|now|next|please|pls|hey|"
    r"just|maybe|instead|first|finally|anyway|anyways|actually|no|yes|yeah|sure|well|hmm)[,.!]?\s+)*"
    r"(?:please\s+)?(?:" + _TASK_VERB + r")\b(?!\s+(?:is|are|means|was)\b)"
    r"|\b(?:can|could|would|will) you\b|\bcan we\b|\blet'?s\b|\bgo ahead\b|\bplease\b|\bi need you\b"
    r"|\b(?:this|that|the|my) (?:file|function|method|class|test|tests|pr|branch|commit|chart|plot|notebook|cell|"
    r"script|snippet|diff|error|output|line|loop|variable|draft|doc|slide|email|message)\b(?!\s+(?:is|are)\b)"
    r"|\bline \d+\b|\bthe (?:one|query|code) above\b|\bagain\b", re.I)
_PREFERENCE = re.compile(
    r"\bi (?:prefer|like|love|hate|dislike|want|'d like|would like|'d rather|would rather|'m used to|find)\b"
    r"|\bmy (?:preference|style|taste|editor|setup|machine|laptop)\b|\bfor me\b|\bin my (?:code|scripts?|"
    r"notebooks?|prs?)\b|\b(?:emoji|emojis|verbose|concise|shorter answers?|longer answers?|bullet points|"
    r"tabs|spaces|dark mode|tone)\b|\bcall me\b|\bdon't (?:apologi[sz]e|explain)\b", re.I)
_QUESTION_START = re.compile(r"^(?:what|why|how|when|where|which|who|whom|whose|can|could|would|should|shall|is|"
                             r"are|do|does|did|have|has|will|am|any idea|any chance|wdyt|thoughts)\b", re.I)
_CHIT = re.compile(r"^(?:thanks?(?: you)?|thx|ty|great|nice|cool|awesome|perfect|lgtm|looks good|sounds good|"
                   r"got it|ok(?:ay)?|k|sure|yep|yes|yeah|no|nope|done|good|excellent|brilliant|wow|lol|haha|"
                   r"hello|hi|hey|morning|good morning|bye|cheers)\W*$", re.I)

_CORRECTION_CUE = re.compile(
    r"^(?:no+\b|nope\b|nah\b|not quite\b|not really\b|not exactly\b|not true\b|wrong\b|incorrect\b|actually\b|"
    r"wait\b|hmm+\b|hm+\b|careful\b|close,? but\b|almost\b|well,? actually\b|uh+\b|err?\b|sorry,? but\b|"
    r"that(?:'s| is| was) (?:not|wrong|incorrect|outdated|old|a mistake|off)\b|this (?:is|was) (?:not|wrong)\b|"
    r"it(?:'s| is) not\b|it isn't\b|they(?:'re| are) not\b|that isn't\b|that's not right\b|correction\b|"
    r"small correction\b|one correction\b|to correct\b|you(?:'re| are) wrong\b|you have it backwards\b|"
    r"the other way (?:round|around)\b|other way (?:round|around)\b)", re.I)
_CONTRAST = re.compile(r"\b(?:actually|not|n't|instead|rather than|rather|wrong|incorrect|outdated|no longer|"
                       r"anymore|any more|but|however|backwards|opposite|mistaken|stale)\b", re.I)
_AGREE = re.compile(r"^(?:yes+|yep|yup|yeah|ya|correct|right|exactly|indeed|confirmed|true|that's (?:right|correct|"
                    r"it|true|accurate)|that is (?:right|correct)|you(?:'re| are) right|spot on|precisely|"
                    r"affirmative|bingo|absolutely|100%|that matches|matches)\b[\s,.!:;—-]*", re.I)
_GO_AHEAD = re.compile(r"^(?:please\s+)?(?:go|do it|go ahead|proceed|ship it|run it|try it|sure|please|ok|okay|"
                       r"make it so|let's|lets|continue|keep going|push|commit|merge)\b", re.I)
_ASKS_PERMISSION = re.compile(
    r"\b(?:shall i|should i|do you want me|want me to|would you like(?: me)?|may i|can i|ok to|okay to|"
    r"proceed\?|go ahead\?|let me know if|ready to|i can (?:also )?(?:run|add|make|update|fix|create|write)|"
    r"i'll (?:go ahead|proceed)|if you(?:'d)? like)\b", re.I)
_HYPOTHESIS = re.compile(
    r"\b(?:right\?|correct\?|is that (?:right|correct|true)|am i right|does that (?:match|sound right)|i assume|"
    r"i'm assuming|i am assuming|i believe|it (?:seems|looks like|appears)|looks like|my understanding is|"
    r"if i understand|so (?:the|this|that|it|we)\b|which means|that means|confirm(?:ing)? that|i take it)", re.I)
_LEAD = re.compile(
    r"^(?:(?:no+|nope|nah|not quite|not really|not exactly|wrong|incorrect|actually|wait|hmm+|hm+|careful|oh|ah|"
    r"ok(?:ay)?|so|also|and|but|well|right|yes+|yeah|yep|yup|correct|exactly|indeed|true|sorry|uh+|err?|"
    r"one more thing|one thing|quick note|side note|small correction|one correction|correction|to correct|"
    r"that(?:'s| is) (?:not right|wrong|incorrect|outdated|not it)|close,? but|almost|the other way (?:round|around)|"
    r"you have it backwards|you(?:'re| are) wrong|that(?:'s| is) right|that(?:'s| is) correct|you(?:'re| are) right|"
    r"spot on|precisely|just|fwiw|also,? fyi|hold on|hang on|fine|sure|cool|great|nice|thanks|ah|oh right|"
    r"ok so|right so|anyway|anyways)\b[\s,.!:;—–-]*)+", re.I)
_YOU_SHOULD = re.compile(r"^(?:you (?:should|need to|have to|must|want to|'ll want to|will want to)|make sure (?:to|you)"
                         r"|remember to|be sure to|please)\s+(?:always\s+|never\s+)?", re.I)
_PRONOUN = re.compile(r"^(it|that|this|they|those|these)(?:'s|'re| is| are| was| were)\b", re.I)
_NAMED = re.compile(r"`[^`\n]+`|\b[a-z][a-z0-9]*(?:[_.][a-z0-9_]+)+\b")
_HEDGE = re.compile(r"^(?:so,?\s+|just to confirm,?\s+|to confirm,?\s+|i (?:assume|believe|think)(?: that)?,?\s+|"
                    r"i'm assuming(?: that)?\s+|it (?:seems|looks like|appears)(?: that)?\s+|looks like\s+|"
                    r"my understanding is(?: that)?\s+|if i understand (?:correctly|right),?\s+|"
                    r"(?:ok(?:ay)?|great|got it|understood|thanks)[,.!]?\s+)+", re.I)
_TAG_QUESTION = re.compile(r"[\s,—–-]*(?:right|correct|is that (?:right|correct|true)|am i right|yes|no|"
                           r"does that (?:match|sound right)|or not)\s*\?+\s*$", re.I)


class Reading(NamedTuple):
    text: str
    specific: bool
    generic: bool
    convention: bool
    notice: bool
    task: bool
    preference: bool
    question: bool
    transient: bool  # a guess, or about this moment ("probably", "today", "for now", "yet")
    change: bool  # a dated change that explains the data


_QUOTED = re.compile(r"'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|`[^`\n]+`")  # a word mentioned, not used
_DEFINING = re.compile(r"=|\bmeans\b|\bdefined as\b|\brefers to\b|\bstands for\b", re.I)
_WH = re.compile(r"^(?:what|why|how|when|where|which|who|whom|whose)\b", re.I)


def read_sentence(sentence: str) -> Reading:
    bare = _LEAD.sub("", sentence).strip()
    notice = bool(_NOTICE.match(bare))
    if notice:
        bare = _NOTICE.sub("", bare, count=1)
    convention = bool(_CONVENTION.search(bare)) or bool(re.search(r"\bfrom now on\b|\bgoing forward\b|"
                                                                  r"\bby default\b|\bin general\b|,\s*ever\b|"
                                                                  r"\bnever ever\b", bare, re.I))
    return Reading(
        sentence,
        specific=bool(_SPECIFIC.search(sentence) or _DOMAIN.search(sentence)),
        generic=bool(_GENERIC.search(bare)),
        convention=convention,
        notice=notice,
        task=bool(_TASK.search(bare)) and not convention,
        preference=bool(_PREFERENCE.search(sentence) or _PERSONAL.search(bare)),
        question=sentence.rstrip().endswith("?") or bool(_WH.match(bare)) or bool(
            _QUESTION_START.match(bare) and not notice and "?" in sentence),
        transient=bool(_SPECULATIVE.search(bare) or (_EPISODIC.search(_QUOTED.sub("", bare))
                                                      and not _DEFINING.search(bare))) and not convention,
        change=bool(_CHANGE.search(bare)),
    )


def durable(r: Reading) -> bool:
    """Does this sentence state something a teammate's agent should know next week?"""
    if r.question or r.preference or r.transient or not r.specific or len(r.text.split()) < 3:
        return False
    if r.task and not (r.convention or r.notice):
        return False
    return r.generic or r.convention or r.notice or r.change


# -- the detector ----------------------------------------------------------------------------------------------


def find(session: Session, clean=None) -> list[Found]:
    """The candidates in SESSION: at most one per user turn. CLEAN (text -> text, e.g. the credential redaction)
    is applied to a turn that holds a candidate, and to the reply before it, and the turn is read again from the
    cleaned words: a statement is only ever built from cleaned text."""
    found: list[Found] = []
    previous: Turn | None = None  # the assistant's last reply in the main conversation
    for turn in session.turns:
        if turn.role == "boundary":
            previous = None
            continue
        if turn.role == "assistant":
            previous = turn
            continue
        # the end of the reply the turn answers (what a person reacts to; a long reply's start is read no further)
        before = previous.text[-REPLY_TAIL:] if previous is not None and session.agent != "notes" else None
        hit = judge_turn(turn.text, before)
        if hit is not None and clean is not None:
            # the whole reply is cleaned before it is cut: a cut inside a credential leaves a piece no detector knows
            before = clean(previous.text)[-REPLY_TAIL:] if before is not None else None
            hit = judge_turn(clean(turn.text), before)
        if hit is not None:
            kind, statement, quote, why = hit
            found.append(Found(kind, statement, quote, turn.ref, turn.at, why, before or ""))
        previous = None  # a reply answers the turn just before it, not an older one
    return found


def judge_turn(text: str, assistant: str | None) -> tuple[str, str, str, str] | None:
    """(kind, statement, quote, why) for one user turn TEXT after ASSISTANT's reply, or None."""
    if _CHIT.match(text.strip()):
        return None
    parts = sentences(text)
    if not parts:
        return None
    readings = [read_sentence(p) for p in parts]
    facts = [r for r in readings if durable(r)]
    if assistant:
        agree = _AGREE.match(text.strip())
        if agree and not _CORRECTION_CUE.match(text.strip()):
            confirmed = _confirmed_claim(assistant)
            rest = text.strip()[agree.end():].strip()
            if confirmed is not None and not _GO_AHEAD.match(rest) and not (rest and _TASK.search(rest)
                                                                                 and not facts and len(rest.split()) > 5):
                return "confirmation", confirmed, _quote(text, confirmed), "agrees with the assistant's claim"
        cue = _CORRECTION_CUE.match(text.strip())
        if facts and (cue or _sets_right(facts, assistant)):
            statement = _statement(facts, assistant)
            if statement:
                return "correction", statement, _quote(text), "contradicts the assistant's last reply" if cue \
                    else "sets a word of the assistant's last reply right"
    if facts and not (readings[-1].question and not any(r.notice or r.convention for r in facts)):
        statement = _statement(facts, assistant)
        if statement:  # (a turn that ends asking is a question with its context, not a definition)
            return "definition", statement, _quote(text), "states a definition or convention"
    return None


_TOKEN = re.compile(r"[a-z][a-z0-9_.]{3,}|\d+(?:\.\d+)?")
_STOP = frozenset("""this that these those there their them they then than with from into onto have has had been
were what when where which while will would should could about above after again also always because before being
both does doing done each every just more most much only other over same some such very your yours ours here
like want need make sure okay thanks please think know look going still even well really actually""".split())


def _content(text: str) -> set[str]:
    return {t.rstrip(".").removesuffix("s") for t in _TOKEN.findall(text.casefold().replace("`", ""))
            if t not in _STOP}


def _sets_right(facts: list[Reading], assistant: str) -> bool:
    """A fact that answers what the assistant's reply just said: it shares two of its content words (or one, and
    negates or replaces something): the person is setting the agent right, not volunteering a definition."""
    theirs = _content(assistant)
    for r in facts:
        shared = len(_content(r.text) & theirs)
        if shared >= 2 or (shared and _CONTRAST.search(r.text)):
            return True
    return False


_ANAPHORIC = re.compile(r"^(?:is|are|does|do|was|would|should)\s+(?:that|this|it|those|these)\b|"
                        r"^(?:that|this)\s+(?:right|correct|ok|okay)\b|^(?:right|correct|agreed|yes)\b", re.I)
_I_WILL = re.compile(r"^(?:so\s+)?(?:i'd|i'll|i will|i would|i'm going to|i am going to|i plan to|let me|we'd|we'll|"
                     r"we should|i should|i can)\s+", re.I)
_CLAUSE = re.compile(r"\s+(?:--|—|–)\s+|;\s+")


def _confirmed_claim(assistant: str) -> str | None:
    """The claim the assistant asked to have confirmed, as a statement: its last sentence that asks ("…, right?",
    "I assume …", "so X is Y?") or, when that question only points back ("Is that how finance computes it?"),
    the sentence before it; None when the reply ends asking for permission or states nothing specific."""
    parts = sentences(assistant)
    if not parts:
        return None
    if any(_ASKS_PERMISSION.search(p) for p in parts[-2:]):
        return None
    for n in range(len(parts) - 1, max(-1, len(parts) - 5), -1):
        sentence = parts[n]
        if not (_HYPOTHESIS.search(sentence) or sentence.rstrip().endswith("?")):
            continue
        asked = _TAG_QUESTION.sub("", sentence).strip()
        if _ANAPHORIC.match(asked) and not _NAMED.search(asked) and n > 0:
            claim = _claim_from(parts[n - 1], asked)  # "… . Is that how finance computes ARR?"
        else:
            clauses = _CLAUSE.split(asked)
            claim = clauses[-1]
            if _PRONOUN.match(claim) and len(clauses) > 1:
                subject = _subject(" ".join(clauses[:-1]), claim)
                if subject:
                    claim = subject + claim[len(_PRONOUN.match(claim).group(1)):]
            claim = _claim_from(claim, "")
        if claim:
            return claim
    return None


def _claim_from(sentence: str, question: str) -> str | None:
    claim = _HEDGE.sub("", _TAG_QUESTION.sub("", sentence).strip()).strip()
    claim = _I_WILL.sub("", claim)
    claim = re.sub(r"^(?:is it|are they|so is it|does it)\s+", "", claim, flags=re.I).rstrip("?")
    named = _SPECIFIC.findall(question)
    if named and re.match(r"^\w+\s+it\b", claim):  # "compute it from …" + "… computes ARR?"
        claim = re.sub(r"^(\w+)\s+it\b", lambda m: f"{m.group(1)} {named[-1]}", claim, count=1)
    r = read_sentence(claim + ".")
    if not (r.specific and (r.generic or r.convention or "=" in claim)) or _QUESTION_START.match(claim):
        return None
    return _finish(claim)


def _statement(facts: list[Reading], assistant: str | None) -> str | None:
    parts = []
    for r in facts[:3]:
        text = _LEAD.sub("", r.text).strip()
        text = _NOTICE.sub("", text, count=1).strip()
        text = _YOU_SHOULD.sub("", text).strip()
        if not text:
            continue
        pronoun = _PRONOUN.match(text)
        if pronoun and assistant and not parts:
            subject = _subject(assistant, text)
            if subject:
                text = subject + text[len(pronoun.group(1)):]
        parts.append(_finish(text))
    statement = " ".join(parts)
    if len(statement) > MAX_STATEMENT:
        statement = statement[:MAX_STATEMENT].rsplit(" ", 1)[0] + " …"
    return statement or None


def _subject(assistant: str, mine: str) -> str | None:
    """What a leading "it"/"that" in MINE stands for: the last identifier the assistant named that MINE does not."""
    named = [n for n in _NAMED.findall(assistant) if n.strip("`").casefold() not in mine.casefold()]
    return named[-1] if named else None


def _finish(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:—–-")
    if not text:
        return text
    first = text.split(" ", 1)[0]
    if text[0].islower() and not text.startswith(("`", "e.g")) and first.isalpha():  # never an identifier's case
        text = text[0].upper() + text[1:]
    if text[-1] not in ".!?":
        text += "."
    return text.rstrip("?") if text.endswith("?") else text


def _quote(text: str, confirmed: str | None = None) -> str:
    quote = " ".join(text.split())
    if len(quote) > 600:
        quote = quote[:600].rsplit(" ", 1)[0] + " …"
    return f"{quote} (confirming: {confirmed})" if confirmed else quote
