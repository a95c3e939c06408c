"""Generate a synthetic vmem store of N items, fast, for benchmarks.

    python bench/gen_store.py --items 10000 [--out DIR] [--seed 1] [--jobs 2] [--force]

The store is a real one: created by vmem.ops.init.init_store from the template,
then ONE commit ("vmem: import: N synthetic items", trailer Vmem-Action: import)
adds 20 entities and N items: ~70% claims (proposed / approved / mandatory /
superseded pairs, org- and entity-scoped) and ~30% knowledge items (candidate /
eligible / published, with evidence). Every file is checked with
vmem.model.validate and serialised with vmem.store.codec.dump, so it is
byte-identical to what vmem itself writes; paths come from vmem.model.item_path.

Content is a pure function of (N, seed): ids come from random.Random(seed) and
timestamps from a fixed anchor date, so the same arguments give the same files.

How it is built: codec.dump (ruamel round trip, 4-6 ms per item) dominates,
so it runs in --jobs worker processes, which also write each blob into the
object database and each file into the work tree. The main process builds the
2 x 256 shard trees with TreeBuilder, commits, and fills the git index from the
tree (Index.read_tree) plus `git update-index --refresh` for the stat data.
Measured on 10k items, that costs about what repo.checkout_head(strategy=FORCE)
after the commit costs (2-8 s either way here, dominated by creating files),
but the file writes overlap with serialisation in the workers. Finally the
loose objects are packed (`git repack -adq`), as in any cloned store, so the
benchmarks never race a `git gc --auto`. On the 2-vCPU benchmark machine:
1k items ~5 s, 10k ~60 s, 100k ~8 min (serialisation 85% of it; two workers
give only ~1.3x there).

The generated store is cached: DIR/.git/vmem-bench.json records N, seed and the
generated commit. A later call with the same N and seed reuses the store, first
resetting it to the generated commit if benchmarks added commits; --force
rebuilds it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pygit2

from vmem import model
from vmem.confidence import base_confidence
from vmem.ops.common import expires_at
from vmem.ops.init import init_store
from vmem.policy import POLICY_FILE
from vmem.store import codec
from vmem.store.message import Message, shorten
from vmem.text import canonicalize

BENCH_DIR = Path(__file__).resolve().parent
MARKER = "vmem-bench.json"  # lives in .git/, so it never shows up in `git status`
MARKER_VERSION = 1  # bump when the generator's output changes, to invalidate cached stores
IDENTITY = ("bench", "bench@example.com")
ANCHOR = datetime(2026, 11, 1, tzinfo=timezone.utc)  # the generated store's "now"
CHUNK = 100  # items per worker task (small, to balance the two workers)

# -- vocabulary -----------------------------------------------------------------------

TABLES = {
    "orders": ["order_id", "customer_id", "placed_at", "completed_at", "amount_cents", "currency", "channel"],
    "events": ["event_id", "user_id", "session_id", "created_at", "event_name", "platform"],
    "invoices": ["invoice_id", "account_id", "issued_at", "due_at", "paid_at", "amount_cents", "tax_cents"],
    "subscriptions": ["subscription_id", "account_id", "plan_id", "mrr_cents", "started_at", "canceled_at"],
    "payments": ["payment_id", "invoice_id", "captured_at", "amount_cents", "processor", "refund_cents"],
    "accounts": ["account_id", "created_at", "segment", "region", "parent_account_id", "owner_id"],
    "sessions": ["session_id", "user_id", "started_at", "ended_at", "device_type", "utm_source"],
    "refunds": ["refund_id", "payment_id", "requested_at", "processed_at", "amount_cents", "reason_code"],
    "users": ["user_id", "account_id", "signup_at", "last_seen_at", "role", "is_internal"],
    "tickets": ["ticket_id", "account_id", "opened_at", "closed_at", "priority", "csat_score"],
    "leads": ["lead_id", "source", "created_at", "converted_at", "owner_id", "score"],
    "shipments": ["shipment_id", "order_id", "shipped_at", "delivered_at", "carrier", "warehouse_id"],
    "inventory_snapshots": ["sku", "warehouse_id", "snapshot_date", "on_hand", "reserved"],
    "marketing_spend": ["campaign_id", "channel", "spend_date", "spend_cents", "clicks"],
    "product_usage_daily": ["account_id", "usage_date", "active_users", "api_calls", "storage_gb"],
    "opportunities": ["opportunity_id", "account_id", "stage", "amount_cents", "close_date", "owner_id"],
}
TEXT_COLUMNS = {"channel", "platform", "event_name", "processor", "segment", "region", "device_type", "utm_source",
                "reason_code", "role", "priority", "source", "carrier", "stage", "currency"}
SCHEMAS = ["analytics", "mart", "finance", "core", "reporting"]
METRICS = {
    "arr": "ARR", "mrr": "MRR", "net_revenue_retention": "net revenue retention", "gross_margin": "gross margin",
    "churn_rate": "logo churn rate", "cac": "CAC", "ltv": "customer lifetime value",
    "conversion": "checkout conversion",
    "aov": "average order value", "dau": "daily active users", "activation_rate": "activation rate",
    "payback_period": "CAC payback period", "refund_rate": "refund rate", "on_time_delivery": "on-time delivery rate",
    "ticket_backlog": "support ticket backlog", "csat": "CSAT", "pipeline_coverage": "pipeline coverage",
    "win_rate": "win rate", "bookings": "net new bookings", "gmv": "GMV",
}
DOMAINS = {
    "finance": ["invoices", "payments", "subscriptions", "refunds", "orders"],
    "product": ["events", "sessions", "users", "product_usage_daily"],
    "marketing": ["marketing_spend", "leads", "sessions"],
    "sales": ["opportunities", "accounts", "leads"],
    "operations": ["shipments", "inventory_snapshots", "orders"],
    "support": ["tickets", "users", "accounts"],
}
STAMPED_WHEN = ["the payment settles", "the warehouse confirms pick-up", "the nightly batch loads the row",
                "the processor webhook arrives", "finance closes the period", "the customer accepts the quote"]
EXCLUSIONS = ["trials and internal test accounts", "one-off services and usage overages", "reseller-billed contracts",
              "refunds issued after month end", "accounts flagged is_internal", "free-tier workspaces"]
TEST_VALUES = ["qa", "test", "sandbox", "internal", "demo"]
SYSTEMS = ["billing", "CRM", "warehouse", "event tracking", "identity"]
DIMENSIONS = ["region", "segment", "plan", "channel", "cohort month", "account owner"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
TEAMS = ["finance", "data platform", "revenue operations", "growth", "support operations"]
JOBS = ["dbt_nightly", "finance_close", "usage_rollup", "crm_sync", "fx_refresh"]

INDUSTRIES = ["healthcare", "fintech", "retail", "logistics", "manufacturing", "education", "media", "insurance"]
SEGMENTS = {"enterprise": "enterprise", "mid-market": "mid-market", "smb": "SMB"}  # category value -> text
REGIONS = ["emea", "na", "apac", "latam"]
STAGES = {"security_review": "security review", "legal_review": "legal review", "procurement": "procurement",
          "pilot": "the pilot", "renewal": "renewal talks", "onboarding": "onboarding"}
OBJECTIONS = {"dpa": "DPA redlines", "data_residency": "data residency", "sso": "SSO and SCIM support",
              "pricing": "per-seat pricing", "audit_logs": "audit log retention", "uptime_sla": "the uptime SLA",
              "integration": "the ERP integration effort", "migration": "historical data migration"}
REQUIREMENTS = ["a signed DPA", "a SOC 2 Type II report", "an EU-only hosting commitment", "a penetration test summary",
                "named-user audit trails", "a dedicated support contact", "a fixed-price pilot", "on-premise backups"]
MITIGATIONS = ["the pre-filled security questionnaire", "a reference call with a peer customer",
               "the data residency addendum", "a two-week sandbox", "the ROI calculator", "the migration playbook"]
TRIGGERS = ["a second team adopts the dashboards", "their fiscal year closes", "an executive sponsor changes",
            "the first quarterly business review", "they hit the API rate limit", "a compliance audit passes"]
ACTIVITIES = ["connecting a data source", "inviting a second admin", "scheduling a report", "finishing onboarding"]

FIRST = ["Alice", "Bob", "Chen", "Dara", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kiran", "Lena", "Mateo",
         "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tomas", "Uma", "Viktor", "Wen", "Yara"]
LAST = ["Moreau", "Lindgren", "Wei", "Nakamura", "Kaya", "Haddad", "Novak", "Brandt", "Costa", "Berg", "Rao",
        "Holmberg", "Silva", "Petrov", "Dahl", "Iyer", "Okafor", "Marchetti", "Sato", "Kowalski"]
COMPANIES = ["Brightwater Clinics", "Cobalt Freight", "Dunmore Retail", "Elmstead Bank", "Fenwick Learning",
             "Galloway Media", "Harrowgate Foods", "Ironvale Manufacturing", "Juniper Insurance", "Kestrel Logistics",
             "Lumen Biotech", "Marlow Energy", "Northgate Pharmacy", "Orchid Travel", "Pinecrest Credit Union",
             "Quarry Hill Software", "Redfern Apparel", "Stonebridge Health", "Thistle Telecom", "Umber Mills"]
REVISABLE = re.compile(r"(?<![\d:.])\d{1,2}(?![\d:])")  # small counts, not times, years or decimals
ANALYSTS = 12
REVIEWERS = 3


def _ts(moment: datetime) -> str:
    return model.format_ts(moment)


def _columns(table: str, kind: str) -> list[str]:
    """Columns of TABLE by kind, guessed from their names: time, amount, text, or any (all but the key)."""
    columns = TABLES[table]
    if kind == "time":
        return [c for c in columns if c.endswith(("_at", "_date"))]
    if kind == "amount":
        return [c for c in columns if c.endswith("_cents")]
    if kind == "text":
        return [c for c in columns if c in TEXT_COLUMNS]
    return columns[1:]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _pct(rng: random.Random) -> int:
    return rng.randint(2, 35)


class Generator:
    """Deterministic synthetic content: the same seed gives the same entities, people, ids and text."""

    def __init__(self, seed: int, policy: dict) -> None:
        self.rng = random.Random(seed)
        self.policy = policy
        self.ids: set[str] = set()
        rng = self.rng
        names = [f"{first} {last}" for first in FIRST for last in LAST]
        rng.shuffle(names)
        self.analysts = [f"{n.split()[0].lower()}.{n.split()[1].lower()}@northwind-analytics.example"
                         for n in names[:ANALYSTS]]
        self.reviewers = self.analysts[:REVIEWERS]
        self.entities = [self._entity(company, names[ANALYSTS + 2 * i: ANALYSTS + 2 * i + 2])
                         for i, company in enumerate(COMPANIES)]

    # -- ids, times -------------------------------------------------------------------

    def new_id(self, kind: str) -> str:
        while True:
            item_id = f"{model.PREFIX[kind]}-{self.rng.getrandbits(48):012x}"
            if item_id not in self.ids:
                self.ids.add(item_id)
                return item_id

    def moment(self, within_days: int = 180) -> datetime:
        return ANCHOR - timedelta(seconds=self.rng.randrange(within_days * 86400))

    # -- entities ---------------------------------------------------------------------

    def _entity(self, company: str, people: list[str]) -> dict:
        rng = self.rng
        words = company.split()
        slug = "-".join(w.lower() for w in words)
        ticker = "".join(w[:2] for w in words).upper()
        return model.validate("entity", {
            "id": slug,
            "name": company,
            "aliases": [words[0], "".join(words), ticker],
            "domains": [f"{slug}.example"],
            "people": people,
            "categories": [f"industry:{rng.choice(INDUSTRIES)}", f"segment:{rng.choice(list(SEGMENTS))}",
                           f"region:{rng.choice(REGIONS)}"],
            "restricted": [f"${rng.randint(2, 49) / 10:.1f}M {rng.choice(['annual', 'three-year'])} term",
                           f"{rng.choice(MONTHS)} {rng.randint(1, 28)}, 2027"],
        }, model.entity_path(slug))

    # -- text -------------------------------------------------------------------------

    def claim_text(self, entity: dict | None = None) -> tuple[str, str, list[str], str]:
        """(statement, domain, categories, class) for one fact; entity-specific when ENTITY is given."""
        for _ in range(100):
            text, domain, tables, metrics, klass = (self._entity_fact(entity) if entity else self._org_fact())
            if 80 <= len(text) <= 250:
                categories = [f"table:{t}" for t in dict.fromkeys(tables)] + [f"metric:{m}" for m in metrics]
                return text, domain, categories, klass
        raise RuntimeError("vocabulary produced no statement of 80-250 characters")  # pragma: no cover

    def _table(self, domain: str, **need: int) -> str:
        """A table of DOMAIN (else of any domain) with at least need[kind] columns of each kind."""
        def fits(t: str) -> bool:
            return all(len(_columns(t, kind)) >= n for kind, n in need.items())
        return self.rng.choice([t for t in DOMAINS[domain] if fits(t)] or [t for t in TABLES if fits(t)])

    def _org_fact(self):
        rng = self.rng
        domain = rng.choice(list(DOMAINS))
        m = rng.choice(list(METRICS))
        metric, n, schema, template = METRICS[m], rng.randint(2, 9), rng.choice(SCHEMAS), rng.randrange(12)
        t = t2 = self._table(domain)
        klass = "factual"
        if template == 0:
            t = self._table(domain, time=2)
            c1, c2 = rng.sample(_columns(t, "time"), 2)
            text = (f"{t}.{c1} is stamped when {rng.choice(STAMPED_WHEN)}, not when the row is created; it trails "
                    f"{t}.{c2} by {n} days on average. Use {c2} for same-day analysis.")
        elif template == 1:
            t, t2 = rng.sample(DOMAINS[domain], 2)
            text = (f"{_capital(metric)} excludes {rng.choice(EXCLUSIONS)}. Reconcile it with the "
                    f"{rng.choice(TEAMS)} team's numbers by joining {t} to {t2} on {TABLES[t2][0]}.")
        elif template == 2:
            text = (f"The {schema}.{t} table is rebuilt nightly at {n:02d}:00 UTC; queries that run earlier see "
                    f"yesterday's {rng.choice(_columns(t, 'any'))} values and can double-count rows.")
        elif template == 3:
            t = self._table(domain, amount=1, time=1)
            text = (f"{t}.{rng.choice(_columns(t, 'amount'))} is stored in minor units of the original currency; "
                    f"divide by 100 and convert with fx_rates.usd_rate as of {t}.{rng.choice(_columns(t, 'time'))} "
                    f"before summing {metric}.")
        elif template == 4:
            t = self._table(domain, text=1)
            text = (f"Rows in {t} where {rng.choice(_columns(t, 'text'))} = '{rng.choice(TEST_VALUES)}' are test "
                    f"traffic from the QA team; filter them out before computing {metric}.")
        elif template == 5:
            t = self._table(domain, time=1)
            text = (f"{_capital(metric)} is defined over a trailing {7 * n}-day window of "
                    f"{t}.{rng.choice(_columns(t, 'time'))}, not calendar months, so it will not match the board deck "
                    f"for the same month.")
        elif template == 6:
            t, t2 = rng.sample(DOMAINS[domain], 2)
            c1 = rng.choice(_columns(t, "any"))
            c2 = c1 if c1 in TABLES[t2] else rng.choice(_columns(t2, "any"))
            text = (f"{t}.{c1} is null for rows created before {rng.choice(MONTHS)} {rng.randint(2019, 2025)}, "
                    f"when the {rng.choice(SYSTEMS)} migration happened; backfill it from {t2}.{c2}.")
        elif template == 7:
            t, t2 = rng.sample(DOMAINS[domain], 2)
            text = (f"Join {t} to {t2} on {TABLES[t2][0]}, never on e-mail address: {_pct(rng)}% of accounts share "
                    f"an address with a reseller and the join silently fans out.")
        elif template == 8:
            text = (f"Dashboards that show {metric} by {rng.choice(DIMENSIONS)} read from {schema}.{t}, which lags "
                    f"the source system by about {n} hours.")
            klass = "contextual"
        elif template == 9:
            t, t2 = self._table(domain, time=1), self._table(rng.choice(list(DOMAINS)), time=1)
            text = (f"{t}.{rng.choice(_columns(t, 'time'))} uses the customer's local time zone while "
                    f"{t2}.{rng.choice(_columns(t2, 'time'))} is UTC; convert both to UTC before comparing dates "
                    f"across regions.")
        elif template == 10:
            text = (f"To refresh {metric} after a backfill of {t}, rerun the {rng.choice(JOBS)} job with full_refresh "
                    f"enabled, then clear the {schema} dashboard cache.")
            klass = "procedural"
        else:
            text = (f"The team prefers {metric} charts in weekly buckets starting {rng.choice(WEEKDAYS)}; monthly "
                    f"buckets hide the {t}.{rng.choice(_columns(t, 'any'))} seasonality that {rng.choice(TEAMS)} "
                    f"asks about.")
            klass = "preference"
        tables = [name for name in dict.fromkeys((t, t2)) if re.search(rf"\b{name}\b", text)]
        return text, domain, tables, [m] if metric in text else [], klass

    def _entity_fact(self, entity: dict):
        rng = self.rng
        name, alias = entity["name"], entity["aliases"][0]
        m = rng.choice(list(METRICS))
        metric = METRICS[m]
        t = rng.choice(list(TABLES))
        c1 = rng.choice(TABLES[t][1:])
        template = rng.randrange(5)
        if template == 0:
            text = (f"{name} bills annually in {rng.choice(MONTHS)}, so their {metric} spikes then; spread their "
                    f"invoices over twelve months for trend charts.")
            domain, tables = "finance", ["invoices"]
        elif template == 1:
            text = (f"{name} buys through a reseller account; attribute {t}.{c1} to {alias} through "
                    f"accounts.parent_account_id, not the billing account.")
            domain, tables = "sales", [t, "accounts"]
        elif template == 2:
            text = (f"{alias}'s data team pulls {metric} from the {rng.choice(SCHEMAS)}.{t} export every "
                    f"{rng.choice(WEEKDAYS)}; announce changes to {c1} a week ahead.")
            domain, tables = "product", [t]
        elif template == 3:
            text = (f"Usage for {name} is double-reported in product_usage_daily since their SSO migration in "
                    f"{rng.choice(MONTHS)}; dedupe on account_id and usage_date before computing {metric}.")
            domain, tables = "product", ["product_usage_daily"]
        else:
            text = (f"{alias} runs {rng.randint(2, 9)} regional sub-accounts; roll {t}.{c1} up to the parent "
                    f"account or their {metric} looks {_pct(rng)}% lower than the contract says.")
            domain, tables = "finance", [t]
        return text, domain, tables, [m], rng.choice(["factual"] * 4 + ["contextual"])

    def learning_text(self) -> tuple[str, list[str]]:
        """(statement, categories) for one customer-behaviour generalisation."""
        rng = self.rng
        industry, segment, region = rng.choice(INDUSTRIES), rng.choice(list(SEGMENTS)), rng.choice(REGIONS)
        said = SEGMENTS[segment]
        stage = rng.choice(list(STAGES))
        objection = rng.choice(list(OBJECTIONS))
        n = rng.randint(2, 8)
        template = rng.randrange(6)
        if template == 0:
            text = (f"{_capital(said)} customers in {industry} require {rng.choice(REQUIREMENTS)} before "
                    f"{STAGES[stage]}; budget about {n} extra weeks.")
            cats = [f"segment:{segment}", f"industry:{industry}", f"stage:{stage}"]
        elif template == 1:
            text = (f"{_capital(industry)} buyers push back on {OBJECTIONS[objection]} during {STAGES[stage]}; "
                    f"leading with {rng.choice(MITIGATIONS)} shortens the cycle by about {n} weeks.")
            cats = [f"industry:{industry}", f"objection:{objection}", f"stage:{stage}"]
        elif template == 2:
            text = (f"Customers in {region.upper()} raise {OBJECTIONS[objection]} during {STAGES[stage]} far more "
                    f"often than other regions; involve the regional solutions engineer early.")
            cats = [f"region:{region}", f"objection:{objection}", f"stage:{stage}"]
        elif template == 3:
            text = (f"{_capital(said)} accounts that skip {rng.choice(ACTIVITIES)} in the first {7 * n} days "
                    f"churn at roughly twice the usual rate.")
            cats = [f"segment:{segment}", "stage:onboarding"]
        elif template == 4:
            text = (f"Procurement at {industry} customers insists on {rng.choice(REQUIREMENTS)}; send it with the "
                    f"first proposal to avoid a {n}-week delay.")
            cats = [f"industry:{industry}", "stage:procurement"]
        else:
            text = (f"{_capital(industry)} customers in the {said} segment expand after "
                    f"{rng.choice(TRIGGERS)}, usually within {n} months.")
            cats = [f"industry:{industry}", f"segment:{segment}", "stage:renewal"]
        return text, cats

    # -- items ------------------------------------------------------------------------

    def items(self, count: int) -> list[dict]:
        """COUNT items (claims and knowledge, ~70/30), as plain dicts ready for model.validate."""
        out: list[dict] = []
        while len(out) < count:
            if self.rng.random() < 0.3:
                out.append(self.knowledge())
            elif self.rng.random() < 0.12 and count - len(out) >= 2:
                out.extend(self.superseded_pair())
            else:
                out.append(self.claim(self.rng.choices(["proposed", "approved", "mandatory"], [40, 48, 12])[0]))
        return out

    def claim(self, status: str) -> dict:
        rng = self.rng
        entity = rng.choice(self.entities) if rng.random() < 0.25 else None
        statement, domain, categories, klass = self.claim_text(entity)
        created = self.moment()
        writer = rng.choice(self.analysts)
        source = "admin_mandate" if status == "mandatory" else rng.choices(["analyst", "import", "definition"],
                                                                           [85, 10, 5])[0]
        item = {
            "id": self.new_id("claim"),
            "kind": "claim",
            "title": shorten(re.split(r"; |\. ", statement)[0], 72) if rng.random() < 0.6 else None,
            "statement": statement,
            "scope": f"entity:{entity['id']}" if entity else "org",
            "class": klass,
            "domain": domain,
            "categories": categories,
            "paths": rng.choice([["**/*.sql"], [f"models/{domain}/**"]]) if rng.random() < 0.1 else [],
            "status": status,
            "audience": "all" if rng.random() < 0.9 else f"group:{domain}",
            "personal": rng.random() < 0.03,
            "source": {"type": source, "user": writer, "episode": None},
            "confidence": base_confidence(source),
            "verifications": [{"user": rng.choice(self.analysts), "kind": rng.choice(["confirmation", "correction"]),
                               "at": _ts(created + timedelta(days=rng.randint(1, 30)))}
                              for _ in range(rng.choice([0, 0, 0, 0, 1, 2]))],
            "created_at": _ts(created),
            "valid_from": _ts(created),
            "expires_at": expires_at(self.policy, klass, _ts(created)),
        }
        if status in ("approved", "mandatory"):
            reviewed = created + timedelta(hours=rng.randint(1, 240))
            item["review"] = {"by": rng.choice(self.reviewers), "at": _ts(reviewed),
                              "action": "approve" if status == "approved" else "mandate", "reason": None}
        return item

    def superseded_pair(self) -> list[dict]:
        """A claim and the approved revision that replaced it (same fact, corrected numbers)."""
        rng = self.rng
        old = self.claim("superseded")
        created = min(model.parse_ts(old["created_at"]) + timedelta(days=rng.randint(1, 60)), ANCHOR)
        reviewed = min(created + timedelta(hours=rng.randint(1, 48)), ANCHOR)
        review = {"by": rng.choice(self.reviewers), "at": _ts(reviewed), "action": "approve", "reason": None}
        new = dict(old, id=self.new_id("claim"), status="approved", verifications=[], review=review,
                   statement=REVISABLE.sub(lambda m: str(int(m.group()) + rng.randint(1, 3)), old["statement"]),
                   source={**old["source"], "user": rng.choice(self.analysts)},
                   created_at=_ts(created), valid_from=_ts(created),
                   expires_at=expires_at(self.policy, old["class"], _ts(created)), supersedes=old["id"])
        old.update(superseded_by=new["id"], valid_to=new["created_at"],
                   review={**review, "action": "supersede", "reason": "revised by " + new["id"]})
        return [old, new]

    def knowledge(self) -> dict:
        rng = self.rng
        statement, categories = self.learning_text()
        status = rng.choices(["candidate", "eligible", "published"], [50, 20, 30])[0]
        support = rng.randint(1, 3) if status == "candidate" else rng.randint(3, 7)
        entities = rng.sample(self.entities, support)
        first = self.moment(365)
        evidence = [{"entity": e["id"], "writer": rng.choice(self.analysts), "episode": None,
                     "at": _ts(min(first + timedelta(days=rng.randint(0, 90) if i else 0), ANCHOR)),
                     "tier": 1 if rng.random() < 0.05 else 2}
                    for i, e in enumerate(entities)]
        last = max(e["at"] for e in evidence)
        item = {
            "id": self.new_id("knowledge"),
            "kind": "knowledge",
            "statement": statement,
            "canonical": canonicalize(statement),
            "categories": categories,
            "status": status,
            "evidence": evidence,
            "first_seen": _ts(first),
            "last_reinforced": last,
            "valid_from": _ts(first),
        }
        if status != "candidate" or rng.random() < 0.4:
            passed = status != "candidate"
            item["gate"] = {"passed": passed,
                            "checks": {"deid": True, "k_support": passed, "writers": True, "category_floor": True},
                            "reason": None if passed else f"supported by {support} customers; needs 3", "at": last}
        if status == "published":
            at = _ts(min(model.parse_ts(last) + timedelta(days=rng.randint(1, 14)), ANCHOR))
            item["audience"] = "all" if rng.random() < 0.8 else "group:sales"
            item["published"] = {"by": rng.choice(self.reviewers), "at": at}
        return item


# -- writing the store ----------------------------------------------------------------

_worker_repo: pygit2.Repository | None = None


def _worker_init(root: str) -> None:
    global _worker_repo
    _worker_repo = pygit2.Repository(root, pygit2.enums.RepositoryOpenFlag.NO_SEARCH)


def _write_chunk(chunk: list[tuple[str, str, dict]]) -> list[tuple[str, str]]:
    """Worker: validate, serialise, store the blob and the work-tree file; return (path, blob id) pairs."""
    root = Path(_worker_repo.workdir)
    out = []
    for path, kind, item in chunk:
        data = codec.dump(model.validate(kind, item, path)).encode("utf-8")
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(data)
        out.append((path, str(_worker_repo.create_blob(data))))
    return out


def _build_tree(repo: pygit2.Repository, base: pygit2.Tree, blobs: list[tuple[str, str]]) -> pygit2.Oid:
    """The base tree plus BLOBS (paths at most three levels deep: file, top/file or top/shard/file)."""
    root = repo.TreeBuilder(base)
    nested: dict[str, dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for path, oid in blobs:
        if "/" not in path:
            root.insert(path, pygit2.Oid(hex=oid), pygit2.GIT_FILEMODE_BLOB)
            continue
        top, *middle, name = path.split("/")
        nested[top]["/".join(middle)][name] = oid
    for top, groups in nested.items():
        top_builder = repo.TreeBuilder(repo[base[top].id]) if top in base else repo.TreeBuilder()
        for middle, files in groups.items():
            builder = top_builder if not middle else repo.TreeBuilder()
            for name, oid in files.items():
                builder.insert(name, pygit2.Oid(hex=oid), pygit2.GIT_FILEMODE_BLOB)
            if middle:
                top_builder.insert(middle, builder.write(), pygit2.GIT_FILEMODE_TREE)
        root.insert(top, top_builder.write(), pygit2.GIT_FILEMODE_TREE)
    return root.write()


def read_marker(root: Path) -> dict | None:
    """What generate() recorded about the store at ROOT (None: not a generated store)."""
    try:
        return json.loads((root / ".git" / MARKER).read_text())
    except (OSError, ValueError):
        return None


def git(root: Path, *args: str) -> str:
    """Run `git -C ROOT ARGS...`; its stdout."""
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def generate(root: Path, count: int, seed: int, jobs: int) -> dict:
    """Create the store at ROOT (which must not exist) and return the marker it records."""
    started = last = time.perf_counter()
    timings: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        timings[name], last = round(now - last, 3), now

    config = pygit2.init_repository(str(root), initial_head="main").config
    config["user.name"], config["user.email"] = IDENTITY
    store = init_store(root)
    repo = store.repo  # one Repository throughout: libgit2 objects must not cross Repository instances
    gen = Generator(seed, store.policy)
    policy_text = (root / POLICY_FILE).read_text()
    policy = dict(codec.load(policy_text, POLICY_FILE), reviewers=gen.reviewers)
    (root / POLICY_FILE).write_text(codec.dump(policy, policy_text))  # as vmem's seed_store does
    files = [(model.entity_path(e["id"]), "entity", e) for e in gen.entities]
    files += [(model.item_path(item["id"]), item["kind"], item) for item in gen.items(count)]
    lap("plan")

    chunks = [files[i:i + CHUNK] for i in range(0, len(files), CHUNK)]
    with multiprocessing.get_context("fork").Pool(jobs, _worker_init, (str(root),)) as pool:
        blobs = [pair for part in pool.imap(_write_chunk, chunks) for pair in part]
    lap("serialise + blobs + files")

    base = store.head().commit
    blobs.append((POLICY_FILE, str(repo.create_blob_fromworkdir(POLICY_FILE))))
    tree = _build_tree(repo, base.tree, blobs)
    message = Message("import", summary=f"{count} synthetic items", body=[
        f"Generated by bench/gen_store.py --items {count} --seed {seed}: reviewers, {len(gen.entities)} entities,",
        f"{sum(1 for p, _, _ in files if p.startswith('claims/'))} claims, "
        f"{sum(1 for p, _, _ in files if p.startswith('knowledge/'))} knowledge items."])
    signature = pygit2.Signature(*IDENTITY, int(ANCHOR.timestamp()), 0)
    commit = repo.create_commit("HEAD", signature, signature, message.render(), tree, [base.id])
    lap("trees + commit")

    index = repo.index
    index.read_tree(repo[tree])
    index.write()
    git(root, "update-index", "-q", "--refresh")  # fills in the stat data: one stat + hash per file
    lap("index")

    git(root, "repack", "-a", "-d", "-q")
    lap("pack")

    marker = {"version": MARKER_VERSION, "items": count, "seed": seed, "commit": str(commit),
              "entities": len(gen.entities), "seconds": round(time.perf_counter() - started, 2), "timings": timings}
    (root / ".git" / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
    return marker


def default_dir(count: int, seed: int) -> Path:
    return BENCH_DIR / "stores" / f"items-{count}-seed-{seed}"


def ensure_store(count: int, seed: int = 1, out: Path | None = None, force: bool = False, jobs: int = 2,
                 log=print) -> Path:
    """The store for (COUNT, SEED): reused when cached (reset to its generated commit), else generated."""
    root = Path(out or default_dir(count, seed)).absolute()
    marker = read_marker(root)
    wanted = {"version": MARKER_VERSION, "items": count, "seed": seed}
    if marker and not force and all(marker.get(k) == v for k, v in wanted.items()):
        head = git(root, "rev-parse", "HEAD").strip()
        if head != marker["commit"]:
            extra = git(root, "rev-list", "--count", f"{marker['commit']}..HEAD").strip()
            git(root, "reset", "-q", "--hard", marker["commit"])
            log(f"reset {root} to its generated commit (dropped {extra} later commits)")
        if git(root, "status", "--porcelain"):
            raise SystemExit(f"{root} has uncommitted changes; rebuild it with --force")
        log(f"reusing {root} ({count} items, seed {seed}, generated in {marker['seconds']} s)")
        return root
    if root.exists():
        if marker is None and any(root.iterdir()):
            raise SystemExit(f"{root} exists and is not a generated bench store; refusing to delete it")
        shutil.rmtree(root)
    log(f"generating {count} items (seed {seed}) into {root} ...")
    marker = generate(root, count, seed, jobs)
    log(f"generated in {marker['seconds']:.1f} s ({count / marker['seconds']:,.0f} items/s); "
        f"steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in marker["timings"].items()))
    return root


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, required=True, help="number of claims + knowledge items")
    parser.add_argument("--out", type=Path, help="store directory (default: bench/stores/items-N-seed-S)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes for serialisation (default: 2)")
    parser.add_argument("--force", action="store_true", help="rebuild even if a cached store matches")
    args = parser.parse_args(argv)
    if args.items < 1:
        parser.error("--items must be at least 1")
    print(ensure_store(args.items, args.seed, args.out, args.force, args.jobs))


if __name__ == "__main__":
    sys.exit(main())
