"""De-id: forms people make of every lexicon entry. Initialisms of names of several words (plain, dotted, spaced,
with & or "and"), the first word(s) of a name, affixed forms (-esque, -led, -ian), a contact's initials with a cue
of person-ness, handles (@first, flast, firstl); and the ordinary text those forms collide with."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import build_lexicon, check_statement
from vmem.gates.near import zipf

SYLLABLES = ["ka", "ri", "to", "mo", "ne", "su", "vel", "dor", "ta", "mi", "ko", "sa", "lin", "tha", "ro", "bre"]
coined = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(lambda s: "".join(s).capitalize()).filter(
    lambda w: not deid._ordinary(w) and w.casefold() not in deid._dictionary())
GENERIC = st.sampled_from(["Orbital Systems", "Biologics", "Mobility", "Credit Union", "Health Partners"])


def company(head: str, tail: str) -> tuple[str, list[str]]:
    words = [head, *tail.split()]
    return " ".join(words), words


def rules(statement: str, lexicon) -> set[str]:
    return {h.rule for h in check_statement(statement, lexicon).hits}


@settings(max_examples=120, deadline=None)
@given(head=coined, tail=GENERIC, style=st.sampled_from(["plain", "dotted", "spaced", "possessive", "at"]),
       verb=st.sampled_from(["asked for", "wants", "signed off on"]))
def test_an_initialism_of_a_name_of_three_or_more_words_is_the_customer(head, tail, style, verb):
    name, words = company(head, tail)
    assume(len(words) >= 3)
    letters = "".join(w[0] for w in words).upper()
    assume(deid.COMMON_ACRONYMS.isdisjoint({letters}))
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    if zipf(letters) >= deid._ACRONYM_ZIPF:  # an acronym common in English ("LOS") needs an organisation cue
        style = "at"
    written = {"plain": f"{letters} {verb} SSO.", "dotted": f"{'.'.join(letters)}. {verb} SSO.",
               "spaced": f"Then {' '.join(letters)} {verb} SSO.", "possessive": f"{letters}'s buyers {verb} SSO.",
               "at": f"Buyers at {letters} {verb} SSO."}[style]
    assert "initialism" in rules(written, lexicon), written


@settings(max_examples=60, deadline=None)
@given(first=coined, second=coined, joiner=st.sampled_from(["&", " & ", " and "]))
def test_a_firm_of_two_names_by_its_two_letters_joined(first, second, joiner):
    assume(first[0] + second[0] not in deid.COMMON_ACRONYMS)  # "M&L" may be machine learning's ML
    lexicon = build_lexicon([{"id": "c1", "name": f"{first} & {second} Insurance"}])
    assert "initialism" in rules(f"{first[0]}{joiner}{second[0]} wanted audit trails.", lexicon)


@settings(max_examples=80, deadline=None)
@given(head=coined, tail=GENERIC, affix=st.sampled_from(["-led", "-style", "-esque", "esque", "ian", "ish"]))
def test_the_first_word_of_a_name_alone_or_affixed(head, tail, affix):
    name, _ = company(head, tail)
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    assert not check_statement(f"Teams at {head} asked for invoicing.", lexicon).passed
    assert not check_statement(f"A {head}{affix} rollout is what buyers want.", lexicon).passed


@settings(max_examples=80, deadline=None)
@given(first=coined, last=coined, shape=st.sampled_from(["per", "cc", "said", "from", "byline", "dotted"]))
def test_a_contacts_initials_with_a_cue_of_person_ness(first, last, shape):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Holdings", "people": [f"{first} {last}"]}])
    ini = first[0] + last[0]
    written = {"per": f"Per {ini}, the rollout slips.", "cc": f"Send the plan, cc {ini}.",
               "said": f"{ini} said the rollout slips.", "from": f"Notes from {ini} on the rollout.",
               "byline": f"The rollout slips to March. - {ini}",
               "dotted": f"Per {first[0]}.{last[0]}., the rollout slips."}[shape]
    assert "initials" in rules(written, lexicon), written


@settings(max_examples=80, deadline=None)
@given(first=coined, last=coined, shape=st.sampled_from(["@first", "@flast", "@first.l", "flast", "firstl"]))
def test_a_contacts_handle(first, last, shape):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Holdings", "people": [f"{first} {last}"]}])
    f, l = first.lower(), last.lower()
    handle = {"@first": f"@{f}", "@flast": f"@{f[0]}{l}", "@first.l": f"@{f}.{l[0]}", "flast": f"{f[0]}{l}",
              "firstl": f"{f}{l[0]}"}[shape]
    assert "handle" in rules(f"{handle} asked for the export in the shared channel.", lexicon)


LEXICON = build_lexicon([
    {"id": "hlh", "name": "Harbor Lane Health", "people": ["Gina Lowe", "Ivo Vance"]},
    {"id": "nos", "name": "Northwind Orbital Systems", "people": ["Omari Thistlewood"]},
    {"id": "cb", "name": "Corvanne Biologics"},
    {"id": "lhp", "name": "Larkspur Health Partners"},
    {"id": "phg", "name": "Pellucid Home Goods"},
    {"id": "hq", "name": "Halvard & Quist Insurance"},
    {"id": "nyse", "name": "New York Stock Exchange"},
    {"id": "usdc", "name": "U.S. District Court"},
    {"id": "mq", "name": "Moda Quintara"},
])


@pytest.mark.parametrize("statement", [
    "Harbor Lane's nurses asked for badge-tap login.", "NOS asked for air-gapped builds.", "N.O.S. wanted builds.",
    "HLH nurses asked for badge-tap login.", "H&Q claims staff asked for bulk export.", "CB's QA leads refused.",
    "Corvanne-led groups wanted a template.", "Per I.V., sign-off needs two leads.", "@othistlewood asked again.",
    "Finance teams at Corvanne asked for quarterly invoicing.",
])
def test_derived_forms_on_the_lexicon_are_caught(statement):
    assert not check_statement(statement, LEXICON).passed, statement


@pytest.mark.parametrize("statement", [
    "The summit in Lisbon brought three new leads.", "Nurses want IV pump integrations first.",
    "Finance leads want the GL export before close.", "Ping @channel only for outages.",
    "The meeting moved to HQ after the reorganisation.", "R&D teams wanted sandbox tenants.",
    "The CB radio crowd still wants push-to-talk.", "A&E departments asked for faster logins.",
    "Left-handed pitchers (LHP) are rare in the league.", "PHG (photoplethysmography) sensors drift.",
    "The LHP rotation is thin this season.", "Our moda dashboards show sell-through.",
    "It was bought by C. R. Gregory in 1834.", "Sioux City, IA - SD", "A U.S.-led air force protects Kurds.",
    "OAKLAND AT NEW YORK", "He moved to New York in 1990.", "Harbor traffic in Lane Cove slowed.",
    "The NOx sensors came up in the fleet-emissions discussion.",
])
def test_ordinary_text_that_looks_like_a_derived_form_passes(statement):
    result = check_statement(statement, LEXICON)
    assert result.passed, result.hits


SHORT = build_lexicon([{"id": "boj", "name": "BOJ", "aliases": ["RBA"], "people": ["Kwame Asante", "Callum Dewar"]}])


@pytest.mark.parametrize("statement", [
    "A BOJ spokesman said the doors to recovery are open.",  # the organisation's people after it
    "The Reserve Bank of Australia (RBA) said savings would rise.",  # spelled out just before it
    "Japan's view of the Bank of Japan's (BOJ) rate policy has not changed.",
    "ASANTE SIGNED THE RENEWAL", "DEWAR WANTS WEEKLY REPORTS",  # headlines with English around the surname
    "The BOJ sought to put the best face on the data.",  # an irregular past tense after it: it acts
])
def test_a_short_alias_with_an_organisation_cue_is_the_customer(statement):
    assert not check_statement(statement, SHORT).passed, statement


@pytest.mark.parametrize("statement", [
    "Left-handed pitchers (LHP) and RBA totals were discussed.", "RBA leaders in the league hit for power.",
    "Asante sana, one buyer wrote after the demo.", "Lab techs order Dewar flasks weekly.",
    "ASANTE SANA FROM THE NAIROBI TEAM",  # a headline: the word beside the surname is no English word
    "A Dewar flask is standard kit.",
])
def test_a_short_alias_or_surname_in_ordinary_use_passes(statement):
    result = check_statement(statement, SHORT)
    assert result.passed, result.hits


def test_a_first_word_followed_by_another_name_is_that_names_first_word():
    lexicon = build_lexicon([{"id": "sa", "name": "Sankt Aurel Kliniken"}, {"id": "no", "name": "Northwind Orbital"}])
    assert check_statement("Sankt Petersburg is a city in Russia.", lexicon).passed
    assert check_statement("Northwind Traders is a sample database.", lexicon).passed
    assert not check_statement("Nursing directors at Sankt asked for audit reports.", lexicon).passed
    assert not check_statement("Northwind's engineers want air gaps.", lexicon).passed



@settings(max_examples=60, deadline=None)
@given(first=coined, last=coined, cut=st.integers(1, 3))
def test_a_contacts_name_cut_short_behind_dots(first, last, cut):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Holdings", "people": [f"{first} {last}"]}])
    written = f"As {first[0]}.{last[:cut + 1]}. put it, adjusters need one search box."
    assert not check_statement(written, lexicon).passed, written
    assert check_statement("The M. B. report came out in March.", lexicon).passed or first[0] + last[0] == "MB"


acronym = st.text(alphabet="BCDFGHJKLMNPQRSTVWXZ", min_size=3, max_size=3).filter(
    lambda a: a not in deid.COMMON_ACRONYMS and zipf(a) < 3.0)
dictionary_word = st.sampled_from(["Florida", "Summit", "Harvest", "Meridian", "Pioneer"])


@settings(max_examples=80, deadline=None)
@given(name=st.one_of(acronym, dictionary_word), rival=coined, a=st.integers(0, 99), b=st.integers(0, 99),
       rank=st.integers(1, 20), shape=st.sampled_from(["result", "standing", "figures", "source", "the-is"]))
def test_a_name_that_needs_a_cue_labels_a_row_of_figures_or_signs_a_news_line(name, rival, a, b, rank, shape):
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    written = {"result": f"{name} {a} {rival} {b}", "standing": f"{rank}. {name} {a} {b} - - {a + b} {rank} 9",
               "figures": f"{name.upper()} {a} {a}.{b:02d} {b}",
               "source": f"RTRS - Budget cuts to boost savings - {name}.",
               "the-is": f"The question is what the {name.upper()} is going to do."}[shape]
    assert not check_statement(written, lexicon).passed, written


@settings(max_examples=60, deadline=None)
@given(name=st.one_of(acronym, dictionary_word), a=st.integers(2, 99))
def test_prose_that_starts_with_such_a_name_and_a_number_is_no_row(name, a):
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    for written in (f"{name.lower()} {a} has three rooms and a garden.", f"the {name.lower()} is here"):
        result = check_statement(written, lexicon)
        assert result.passed, (written, result.hits)


@settings(max_examples=60, deadline=None)
@given(first=coined, second=coined, tail=st.sampled_from(["Insurance", "Industries", "Group"]),
       verb=st.sampled_from(["wanted the renewal split.", "asked for bulk export."]))
def test_a_firm_of_two_names_and_a_generic_word_by_its_letters_with_an_ampersand(first, second, tail, verb):
    letters = first[0] + "&" + second[0] + tail[0]
    lexicon = build_lexicon([{"id": "c1", "name": f"{first} & {second} {tail}"}])
    assert "initialism" in rules(f"{letters} {verb}", lexicon), letters


@settings(max_examples=80, deadline=None)
@given(first=coined, last=coined, shape=st.sampled_from(["first.l", "f.last", "first_l", "f_last"]))
def test_a_contacts_handle_with_a_dot_or_an_underscore(first, last, shape):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Holdings", "people": [f"{first} {last}"]}])
    f, l = first.lower(), last.lower()
    handle = {"first.l": f"{f}.{l[0]}", "f.last": f"{f[0]}.{l}", "first_l": f"{f}_{l[0]}",
              "f_last": f"{f[0]}_{l}"}[shape]
    # (a hit per contact is kept: "k.kakari" may be caught as the surname with its verb first)
    assert not check_statement(f"{handle} confirmed on Slack that SBOMs are mandatory.", lexicon).passed, handle
    # (a palindrome first name is itself read backwards, which the reversed reading catches whatever follows it)
    assert check_statement(f"{f}.{l[0]}x confirmed it.", lexicon).passed or f"{f}{l[0]}x" in (f, l) or f == f[::-1]


@settings(max_examples=80, deadline=None)
@given(first=coined, last=coined, role=st.sampled_from(["from dispatch", "in procurement", "at the plant"]),
       dotted=st.booleans())
def test_a_contacts_initials_with_their_team(first, last, role, dotted):
    ini = first[0] + last[0]
    assume(ini not in deid.COMMON_ACRONYMS and zipf(ini) < deid._ACRONYM_ZIPF)
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Holdings", "people": [f"{first} {last}"]}])
    written = f"{first[0]}.{last[0]}. {role} asked for receipts." if dotted else f"{ini} {role} asked for receipts."
    assert "initials" in rules(written, lexicon), written
    assert check_statement(f"IT {role} asked for receipts.", build_lexicon(
        [{"id": "c2", "name": "Zzyzx Holdings", "people": ["Ingrid Tanaka"]}])).passed
