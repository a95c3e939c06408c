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


MULTI_WORD_REGIONS = {"central_asia": "Central Asian", "north_africa": "North African", "south_america": "South American",
                      "middle_east": "Middle Eastern", "southeast_asia": "Southeast Asian", "east_africa": "East African"}


@settings(max_examples=60, deadline=None)
@given(region=st.sampled_from(sorted(MULTI_WORD_REGIONS)), others=st.lists(st.sampled_from(["emea", "apac", "latam"]),
                                                                           min_size=1, max_size=5),
       marker=st.sampled_from(MARKERS), noun=st.sampled_from(["account", "customer", "client"]))
def test_a_regions_adjective_is_read_whole_by_the_rule_english_forms_it(region, others, marker, noun):
    """"Our single Central Asian account" is the one customer of region:central_asia: the adjective is formed from
    the region's name by rule (asia -> asian, east -> eastern) and read whole, so its last word is not also read as a
    wider region ("Asian" as APAC) that no customer shares with it."""
    lexicon = build_lexicon([{"id": "c0", "name": "Zzyzx 0 Holdings", "categories": ["industry:retail",
                                                                                     f"region:{region}"]}] +
                            [{"id": f"c{n}", "name": f"Zzyzx {n} Holdings", "categories": ["industry:retail",
                                                                                           f"region:{r}"]}
                             for n, r in enumerate(others, 1)])
    result = check_statement(f"{marker} {MULTI_WORD_REGIONS[region]} {noun} wanted audit trails.", lexicon)
    assert not result.passed and {h.kind for h in result.hits} == {"membership"}, result.hits


def test_a_definite_description_of_a_customer_that_acted_names_it():
    """"The Mexican homewares chain we signed": a definite description with an organisation noun, of a customer
    that acted or is on our books, names the one customer of that kind; a kind several share, or one that did
    nothing, names nobody."""
    lexicon = customers([("retail", "latam"), ("retail", "emea"), ("retail", "emea"), ("aerospace", "emea")])
    assert not check_statement("The Mexican homewares chain we signed overrides forecasts in store.", lexicon).passed
    assert not check_statement("The Latin American retailer asked for per-store pricing.", lexicon).passed
    assert check_statement("The European retailer asked for per-store pricing.", lexicon).passed  # two in EMEA
    assert check_statement("The Mexican retail market prices per store.", lexicon).passed  # no customer acts
