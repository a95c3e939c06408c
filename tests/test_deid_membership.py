"""De-id: uniqueness in words. "Our only North American hospital-group customer" names the one customer holding
those categories (the category floor's concern, said in words); the same words about a kind several customers
share, or "our only" about a rule or a requirement, name nobody."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.gates.deid import build_lexicon, check_statement

INDUSTRIES = {"insurance": "insurer", "retail": "retailer", "aerospace": "aerospace customer",
              "logistics": "logistics customer", "biotech": "life-sciences account", "hospital_group": "hospital group"}
REGIONS = {"emea": "European", "north_america": "North American", "latam": "Latin American", "apac": "APAC"}
MARKERS = ["Our only", "Our sole", "The single", "The one", "Our lone"]


def customers(pairs: list[tuple[str, str]]):
    return build_lexicon([{"id": f"c{n}", "name": f"Zzyzx {n} Holdings",
                           "categories": [f"industry:{industry}", f"region:{region}"]}
                          for n, (industry, region) in enumerate(pairs)])


@settings(max_examples=100, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(sorted(INDUSTRIES)), st.sampled_from(sorted(REGIONS))),
                      min_size=1, max_size=8),
       marker=st.sampled_from(MARKERS), with_region=st.booleans())
def test_the_only_customer_of_a_described_kind_is_named_exactly_when_one_holds_it(pairs, marker, with_region):
    industry, region = pairs[0]
    lexicon = customers(pairs)
    kind = f"{REGIONS[region]} {INDUSTRIES[industry]}" if with_region else INDUSTRIES[industry]
    statement = f"{marker} {kind} wanted audit trails on every change."
    holders = sum(1 for i, r in pairs if i == industry and (r == region or not with_region))
    result = check_statement(statement, lexicon)
    assert result.passed == (holders != 1), (statement, pairs, result.hits)
    if holders == 1:
        assert {h.kind for h in result.hits} == {"membership"}


@pytest.mark.parametrize("statement", [
    "Every enterprise customer asked for SSO; it was our only universal requirement.",
    "Our only rule for aerospace deals is a security review before pricing.",
    "The only customers who asked for SCIM had more than one admin.",
    "Among our insurance customers, only one asked for on-prem.",
    "Insurers ask for audit trails on every claim edit.",
    "Claims adjusters want one search box; our only insurer customers are in EMEA.",  # all of a kind, plural
])
def test_only_about_something_else_or_without_uniqueness_passes(statement):
    lexicon = customers([("insurance", "emea"), ("aerospace", "apac"), ("retail", "emea")])
    result = check_statement(statement, lexicon)
    assert result.passed, result.hits


def test_a_countrys_adjective_names_its_region():
    lexicon = customers([("insurance", "emea"), ("retail", "apac"), ("retail", "emea"), ("aerospace", "emea")])
    assert not check_statement("Our only Japanese retailer asked for per-store pricing.", lexicon).passed
    assert not check_statement("Our only UK insurer wants audit trails.", lexicon).passed
    assert check_statement("Our only German customer wants audit reports.", lexicon).passed  # three in EMEA


def test_other_ways_of_saying_the_only_one():
    lexicon = customers([("insurance", "emea"), ("retail", "apac"), ("aerospace", "north_america"),
                         ("hospital_group", "north_america"), ("retail", "emea")])
    for statement in ["Of all our customers, only one is an insurer, and it wants audit trails.",
                      "Our only APAC retail chain asked for per-store pricing.",
                      "We have exactly one aerospace customer; they insisted on air gaps.",
                      "Our one and only hospital group in North America wants badge-tap login."]:
        assert not check_statement(statement, lexicon).passed, statement
    for statement in ["A single insurer asked for audit trails.", "Only one rule applies to aerospace deals.",
                      "Among our retail customers, only one asked for on-prem."]:
        assert check_statement(statement, lexicon).passed, statement


@settings(max_examples=60, deadline=None)
@given(industry=st.sampled_from(["hospital_group", "insurance", "retail"]),
       country=st.sampled_from(["the US", "the USA", "the United States", "Canada"]), also_emea=st.booleans())
def test_the_one_customer_of_a_kind_we_serve_in_a_named_country(industry, country, also_emea):
    pairs = [(industry, "north_america"), ("aerospace", "north_america")] + ([(industry, "emea")] if also_emea else [])
    noun = {"hospital_group": "hospital system", "insurance": "insurer", "retail": "retailer"}[industry]
    statement = f"The one {noun} we serve in {country} asked for SSO for contractors."
    result = check_statement(statement, customers(pairs))
    assert not result.passed, statement
    assert check_statement(f"The one {noun} we serve in {country} asked for SSO.", customers(
        pairs + [(industry, "north_america")])).passed  # two of that kind there: nobody in particular
