"""De-id, fifth round: numbers in their machine and national forms (digit separators, a currency's code, name and
local scale words, minor units, a headcount under another noun, a whole as two parts), dates as timestamps,
spreadsheet serials and compact digits, every country's holidays by name, and markup inside a word. Random values
and names x random transforms, and the ordinary text they must not catch."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from test_deid_round4 import coined_name  # random coined names, as round 4's properties draw them

from vmem.gates import deid
from vmem.gates.deid import build_lexicon, check_statement
from vmem.gates.values import CURRENCY_CODES

coined = coined_name(3, 4)


def lexicon(restricted: list[str], name: str = "Quorvanel Systems") -> deid.Lexicon:
    return build_lexicon([{"id": "c", "name": name, "restricted": restricted}])


def caught(statement: str, lex: deid.Lexicon) -> bool:
    return not check_statement(statement, lex).passed


# -- numbers in machine forms ----------------------------------------------------------------

amounts = st.integers(min_value=12_000, max_value=9_900_000).map(lambda n: n - n % 1000 + 137)


@settings(max_examples=40, deadline=None)
@given(amounts, st.sampled_from(["underscores", "spaces", "apostrophes", "thin spaces", "cents", "camel cents"]))
def test_an_amount_in_any_machine_form_is_caught(amount, form):
    lex = lexicon([f"${amount:,}"])
    written = {"underscores": f"amount: {amount:_} USD", "spaces": f"{amount:,} dollars".replace(",", " "),
               "apostrophes": f"USD {amount:,}".replace(",", "'"), "thin spaces": f"${amount:,}".replace(",", "\u2009"),
               "cents": f"amount_cents: {amount * 100}", "camel cents": f"priceInCents={amount * 100}"}[form]
    assert caught(f"The parsed contract says {written} per year.", lex)


@settings(max_examples=30, deadline=None)
@given(amounts, st.integers(min_value=1, max_value=999))
def test_another_amount_in_those_forms_is_not(amount, shift):
    lex = lexicon([f"${amount:,}"])
    other = amount * 3 // 2 + shift * 1000  # beyond the 2 % a near value may differ by
    assert not caught(f"amount_cents: {other * 100}; amount: {other:_} USD.", lex)


@settings(max_examples=40, deadline=None)
@given(code=st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3).filter(
    lambda c: c.casefold() not in CURRENCY_CODES), tenths=st.integers(min_value=12, max_value=990),
       scale=st.sampled_from([("M", "million"), ("bn", "billion")]))
def test_an_amount_in_a_currency_the_gate_has_no_name_for_is_caught(code, tenths, scale):
    """"AZN 9.6M" is an amount, whatever the code: three capitals before a figure in a restricted value are its
    currency, and its "M" is the figure's scale, not what it counts. Found by a blind set: "AZN 9.6M" restricted,
    neither "closed at 9.6 million manat" nor "AZN 9.6M" itself was held."""
    figure = f"{tenths / 10:g}"
    lex = lexicon([f"{code} {figure}{scale[0]}"])
    assert caught(f"The deal closed at {figure} {scale[1]} in local currency.", lex)
    assert caught(f"The deal closed at {code} {figure}{scale[0]}.", lex)
    assert not caught(f"The deal closed at {tenths * 3 / 10 + 7:g} {scale[1]} in local currency.", lex)


@pytest.mark.parametrize("restricted, statement", [
    ("KES 42,000,000", "Forty-two million shillings covered the rollout."),
    ("IDR 85,000,000,000", "At Rp 85 miliar the contract needed board approval."),
    ("HUF 3,200,000,000", "A premium volume of 3 200 000 000 Ft a year."),
    ("CZK 145 million", "Budget: 145 mil. korun for the reline."),
    ("€620,000", "amount: 620_000 EUR per the parsed contract."),
])
def test_a_currency_by_its_code_name_or_local_scale_word(restricted, statement):
    assert caught(statement, lexicon([restricted]))


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=120, max_value=9000).filter(lambda n: not 1900 <= n <= 2100), st.sampled_from(["staff", "people", "workers", "glassworkers",
                                                                     "warehouse staff", "FTEs", "personnel"]))
def test_a_headcount_under_any_noun_for_a_firms_people(count, noun):
    lex = lexicon([f"{count} employees"])
    assert caught(f"With {count:,} {noun} on three shifts, roles matter.", lex)
    assert not caught(f"With {count:,} servers on three racks, roles matter.", lex)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=500, max_value=5000), st.integers(min_value=500, max_value=5000),  # parts > 2 % apart
       st.sampled_from(["plus", "and", "as well as", "+"]))
def test_a_whole_stated_as_two_parts(a, b, joiner):
    lex = lexicon([f"{a + b:,} trucks"])
    assert caught(f"A fleet of {a:,} owned trucks {joiner} {b:,} subcontracted ones.", lex)
    # two numbers with no word joining them into one whole, or another unit, pin nothing
    assert not caught(f"A fleet of {a:,} owned trucks. In {b:,} cases the depot was shut.", lex)
    assert not caught(f"A table of {a:,} rows {joiner} {b:,} columns.", lex)


def test_a_difference_with_its_joining_word():
    lex = lexicon(["1,400 trucks"])
    assert caught("They run 1,500 trucks less 100 in repair.", lex)


# -- dates in machine forms --------------------------------------------------------------------

days = st.dates(min_value=date(2026, 1, 1), max_value=date(2028, 12, 31))


def epoch(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, 9, tzinfo=timezone.utc).timestamp())


def julian(day: date) -> int:
    """The Julian day number of DAY (the day that begins at noon of DAY)."""
    return day.toordinal() + 1_721_425


@settings(max_examples=40, deadline=None)
@given(days, st.sampled_from(["seconds", "milliseconds", "excel", "compact", "jdn", "jd", "mjd"]))
def test_a_date_in_any_machine_form_is_caught(day, form):
    lex = lexicon([f"{day.isoformat()} go-live"])
    written = {"seconds": f"go_live_ts={epoch(day)}", "milliseconds": f"launch_at_ms={epoch(day) * 1000}",
               "excel": f"the renewal cell reads {(day - date(1899, 12, 30)).days} (Excel serial)",
               "compact": f"go-live {day:%d%m%Y}", "jdn": f"go-live JDN {julian(day)}",
               "jd": f"go-live at JD {julian(day) - 1}.5", "mjd": f"go-live MJD {(day - date(1858, 11, 17)).days}"}[form]
    assert caught(f"Per their project sheet, {written}.", lex)


@settings(max_examples=30, deadline=None)
@given(days, st.integers(min_value=2, max_value=300))
def test_another_day_in_those_forms_is_not(day, shift):
    lex = lexicon([f"{day.isoformat()} go-live"])
    other = day + timedelta(days=shift)
    assume(other.day != day.month or other.month != day.day)  # a compact date reads both day-month orders
    assert not caught(f"go_live_ts={epoch(other)}; cell {(other - date(1899, 12, 30)).days} (Excel serial); "
                      f"{other:%d%m%Y}; JDN {julian(other)}; MJD {(other - date(1858, 11, 17)).days}.", lex)


def test_a_spreadsheet_serial_needs_a_cue_that_it_is_a_date():
    day = date(2026, 9, 28)
    lex = lexicon([f"{day.isoformat()} reline"])
    serial = (day - date(1899, 12, 30)).days
    assert caught(f"Renewal date cell reads {serial}.", lex)
    assert not caught(f"We shipped {serial} units.", lex)


# -- every country's holidays ------------------------------------------------------------------

def _unique_holidays(year: int) -> list[tuple[str, date]]:
    from vmem.gates.datewords import _HOLIDAY_DAYS, _HOLIDAY_WORDS, _MONTH_NAMES, _world_holidays

    names, prefixes = _world_holidays(year)
    # a name that also begins longer names of other days ("Foundation Day" of "Foundation Day of ...") dates those
    # too, as the gate reads it: only a name whose days, with theirs, are at most _HOLIDAY_DAYS is unique
    dated = {name: found | (prefixes.get(name, frozenset()) if len(name.split()) >= 2 else frozenset())
             for name, found in names.items()}
    return sorted((name, min(d for d, _ in found)) for name, found in dated.items()
                  # (a name holding a year of its own, or longer than the 80 characters read before a year, is
                  # not one the statement's year can name)
                  if len({d for d, _ in found}) <= _HOLIDAY_DAYS and 8 <= len(name) <= 80 and name.isascii()
                  and name[0].isalpha() and not any(ch.isdigit() for ch in name)
                  and name.split()[-1] not in _MONTH_NAMES and len(name.split()) <= _HOLIDAY_WORDS)  # "the first day of january 2027" is a month's day


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_a_holiday_of_any_country_with_its_year_is_caught(data):
    pytest.importorskip("holidays")
    name, day = data.draw(st.sampled_from(_unique_holidays(2027)))
    lex = lexicon([f"{day.isoformat()} go-live"])
    assert caught(f"Go-live is {name.title()} 2027, so depots will run a skeleton crew.", lex)
    assert not caught(f"Go-live is {name.title()} 2028, so depots will run a skeleton crew.", lex)


@pytest.mark.parametrize("statement, leak", [
    ("Their cutover was set for Hari Kemerdekaan 2026, when the ports are half-staffed.", True),
    ("Their cutover was set for Independence Day 2026 in Indonesia.", True),
    # a name many countries give to different days names none of them without its country
    ("Their cutover was set for Independence Day 2026.", False),
    ("Their cutover was set for Q3 2026.", False),
])
def test_a_holiday_name_shared_across_countries_needs_its_country(statement, leak):
    pytest.importorskip("holidays")
    assert caught(statement, lexicon(["2026-08-17 cutover"])) is leak


def test_a_year_first_date_in_another_language():
    assert caught("Go-live slid to 2027. március 15., a bank holiday.", lexicon(["2027-03-15 go-live"]))


# -- markup inside a word -----------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(coined, st.sampled_from(["<wbr>", "<b></b>", "-\n", "\u00ad", "<span class='x'></span>"]),
       st.integers(min_value=2, max_value=4))
def test_a_name_split_by_markup_is_caught(name, markup, at):
    lex = lexicon([], name=f"{name} Systems")
    assert caught(f"{name[:at]}{markup}{name[at:]} asked for GeoJSON exports.", lex)


def test_markup_between_words_reads_as_a_space():
    lex = lexicon([], name="Pennacott GIS Solutions")
    assert not caught("Use <br>tags and well-\nknown defaults for the export.", lex)


# -- a short alias's people after a word that says which of them -------------------------------

@pytest.mark.parametrize("statement, leak", [
    ("SMJ plant managers asked for furnace downtime.", True),
    ("S.M.J. plant managers asked for furnace downtime.", True),
    ("SMJ asked for furnace downtime.", True),
    # a short alias modifying a thing is the abbreviation, not the firm
    ("The SMJ welding seams held.", False),
])
def test_a_short_alias_with_its_people_after_a_qualifying_word(statement, leak):
    lex = build_lexicon([{"id": "c", "name": "Sklarna Modry Jestrab", "aliases": ["SMJ"]}])
    assert caught(statement, lex) is leak
