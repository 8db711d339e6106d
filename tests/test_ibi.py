"""The IBI generation standard (RTC-10): its own examples, bad input, and round-trip properties."""

from __future__ import annotations

import doctest
import ipaddress
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from archive.identifiers import ibi as ibi_module
from archive.identifiers.ibi import (
    IBIP_DIGITS,
    IBIP_EPOCH,
    IPV4_DIGITS,
    IPV6_DIGITS,
    Ibi,
    IbiError,
    TemporalDistributor,
    convert_from_decimal,
    convert_to_decimal,
    decode_ibip,
    fraction_digits,
    ibip,
    ibip_prefix,
    ibip_suffix,
    parse,
    repository_name,
    repository_prefix,
    repository_suffix,
    to_datetime,
    to_decimal,
    to_fraction,
    validate_hostname,
    validate_port,
)

# Table 6.2: request dates t_i in order, with the creation date t'_i and the suffix of t(i).
TABLE_6_2 = [
    ("1287587646.394023", 1287587646, 1287587646, "2010/10.20.15.14.06"),
    ("1287588012.2930", 1287588012, 1287588000, "2010/10.20.15.20"),
    ("1287588115.186234", 1287588115, 1287588060, "2010/10.20.15.21"),
    ("1287588115.3462", 1287588115, 1287588115, "2010/10.20.15.21.55"),
    ("1287588115.99623", 1287588116, 1287588116, "2010/10.20.15.21.56"),
    ("1287588116.72", 1287588117, 1287588117, "2010/10.20.15.21.57"),
    ("1287588539.788342", 1287588539, 1287588480, "2010/10.20.15.28"),
]
EXAMPLE_1 = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"  # Chapter 5, Example 1


def code(number: int) -> str:
    return convert_from_decimal(number, IBIP_DIGITS)


# -- The standards' own examples ----------------------------------------------------------------

def test_it_converts_the_ips_of_table_7_2_to_decimal() -> None:
    assert convert_to_decimal("150.163.2.174", IPV4_DIGITS) == 4588904456580
    assert convert_to_decimal("2001:252:0:1::2008:6", IPV6_DIGITS) == 478239719325051908572237


@pytest.mark.parametrize(
    ("number", "coded"),
    [(1, "3"), (19050, "U5H"), (480992662, "38G3TS3"), (4588904456580, "J8LNKAN8P"),
     (478239719325051908572237, "7URMDHLL9SSN2D89M")],
)
def test_it_converts_the_numbers_of_table_7_3_to_ibip_digits(number: int, coded: str) -> None:
    assert code(number) == coded
    assert convert_to_decimal(coded, IBIP_DIGITS) == number


def test_it_mints_the_standards_example() -> None:
    when = datetime(2009, 2, 16, 17, 46, tzinfo=UTC)
    name = repository_name("mtc-m18.sid.inpe.br", 80, when)
    assert name == "sid.inpe.br/mtc-m18/2009/02.16.17.46"
    assert ibip("150.163.34.243", 800, 1234806360) == "8JMKD3MGP8W/34PGRBS"
    assert to_fraction(when) == 1234806360


def test_it_mints_the_prefixes_of_section_2_1() -> None:
    assert repository_prefix("mtc-m18.sid.inpe.br", 80) == "sid.inpe.br/mtc-m18"
    assert repository_prefix("mtc-m18.sid.inpe.br", 8080) == "sid.inpe.br/mtc-m18.8080"
    assert repository_prefix("MTC-M18.Sid.Inpe.BR.", 80) == "sid.inpe.br/mtc-m18"
    assert ibip_prefix("150.163.34.243", 800) == "8JMKD3MGP8W"
    assert ibip_prefix("150.163.34.243", 802) == "8JMKD3MGP8W" + code(802)
    assert ibip_prefix("2001:252:0:1::2008:6", 800) == "7URMDHLL9SSN2D89MX"
    assert ibip_prefix("2001:DB8::1", 800) == ibip_prefix("2001:db8::1", 800)  # text, lower case


def test_it_runs_the_temporal_distributor_of_table_6_2() -> None:
    distributor = TemporalDistributor(1)
    assert distributor.last is None
    for current, creation, date, suffix in TABLE_6_2:
        assert distributor.create(Decimal(current)) == (date, creation)
        assert distributor.last == date
        assert repository_suffix(date) == suffix


def test_it_restores_the_distributor_from_its_persisted_last_date() -> None:
    continued = TemporalDistributor(1)
    for current, *_ in TABLE_6_2[:3]:
        continued.create(Decimal(current))
    restored = TemporalDistributor(Decimal(1))
    restored.last = continued.last  # e.g. read back from the database after a restart
    # A clock set back after the restart: the persisted last date still wins.
    assert TemporalDistributor(1, last=continued.last).create(NOW - 3600) == (
        to_decimal(continued.last + 1), to_decimal(continued.last + 1))
    for current, _creation, date, _suffix in TABLE_6_2[3:]:
        assert restored.create(Decimal(current))[0] == continued.create(Decimal(current))[0] == date


@pytest.mark.parametrize(
    ("ibip_text", "rep_text"),
    [("LK47B6W/362SFKH", "iconet.com.br/banon/2009/09.09.22.01"),  # RTC-11 Example 8.1
     ("8JMKD3MGP7W/3EPGUE5", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57")],  # RTC-11 Example 6.2
)
def test_it_parses_both_forms_of_the_rtc_11_pairs(ibip_text: str, rep_text: str) -> None:
    as_ibip, as_rep = parse(ibip_text), parse(rep_text)
    assert (as_ibip.form, str(as_ibip)) == ("ibip", ibip_text)
    assert (as_rep.form, str(as_rep)) == ("rep", rep_text)
    assert as_ibip.date == as_rep.date  # the two forms were minted at the same instant
    assert as_ibip != as_rep  # but only a registry can say they name the same item


def test_it_reads_the_attributes_of_both_forms() -> None:
    rep = parse("sid.inpe.br/mtc-m18.8080/2010/10.20.15.21.55.3462")
    assert (rep.prefix, rep.suffix) == ("sid.inpe.br/mtc-m18.8080", "2010/10.20.15.21.55.3462")
    assert (rep.hostname, rep.subdomain, rep.first_word) == ("mtc-m18.sid.inpe.br", "sid.inpe.br",
                                                             "mtc-m18")
    assert (rep.port, rep.date, rep.ip) == (8080, Decimal("1287588115.3462"), None)
    ip = parse("8jmkd3mgp8w/34pgrbs")
    assert (ip.ip, ip.port, ip.date, ip.hostname) == ("150.163.34.243", 800, 1234806360, None)
    assert (ip.prefix, ip.suffix) == ("8JMKD3MGP8W", "34PGRBS")
    assert decode_ibip("8JMKD3MGP8W/34PGRBS") == ("150.163.34.243", 800, 1234806360)
    assert decode_ibip("LK47B6W/362SFKH")[0] == "127.0.0.1"


def test_it_is_case_insensitive() -> None:
    shouting = parse("sid.INPE.br/MTC-m18@80/2009/02.16.17.46")
    assert shouting == parse(EXAMPLE_1)
    assert hash(shouting) == hash(parse(EXAMPLE_1))
    assert str(shouting) == EXAMPLE_1
    assert parse("8jmkd3mgp8w/34pgrbs") == parse("8JMKD3MGP8W/34PGRBS")
    assert str(parse("8jmKD3mgp8w/34pgrbs")) == "8JMKD3MGP8W/34PGRBS"


def test_an_ibi_equals_only_ibis_and_distinct_ibis_spread_over_hashes() -> None:
    assert parse(EXAMPLE_1) != EXAMPLE_1 and parse("8JMKD3MGP8W/34PGRBS") != "8JMKD3MGP8W/34PGRBS"
    minted = {parse(repository_name("mtc-m18.sid.inpe.br", 80, NOW + n)) for n in range(64)}
    assert len(minted) == 64 and len({hash(ibi) for ibi in minted}) > 1


def test_it_accepts_the_legacy_at_separator() -> None:
    legacy = parse(EXAMPLE_1)
    assert (str(legacy), legacy.prefix, legacy.port) == (EXAMPLE_1, "sid.inpe.br/mtc-m18@80", 80)
    assert legacy == parse("sid.inpe.br/mtc-m18/2009/02.16.17.46")
    assert parse("sid.inpe.br/mtc-m18@8080/2009/02.16.17.46") == parse(
        "sid.inpe.br/mtc-m18.8080/2009/02.16.17.46")
    assert parse("sid.inpe.br/mtc-m18@8080/2009/02.16.17.46") != legacy
    assert len({legacy, parse("SID.inpe.br/mtc-m18.80/2009/02.16.17.46.00")}) == 1


# -- Seconds and fractions ----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("when", "suffix"),
    [(1287588000, "2010/10.20.15.20"),
     (Decimal("1287588055"), "2010/10.20.15.20.55"),
     (Decimal("1287588000.5"), "2010/10.20.15.20.00.5"),  # with a fraction the seconds are written
     (Fraction(1287588000 * 4 + 1, 4), "2010/10.20.15.20.00.25"),
     (Decimal("1287588115.3462000"), "2010/10.20.15.21.55.3462"),  # shortest digits
     (datetime(2010, 10, 20, 15, 21, 55, 1000, tzinfo=UTC), "2010/10.20.15.21.55.001"),
     (datetime(2010, 10, 20, 12, 21, tzinfo=timezone(timedelta(hours=-3))), "2010/10.20.15.21")],
)
def test_it_writes_seconds_only_when_needed(when: object, suffix: str) -> None:
    assert repository_suffix(when) == suffix
    assert parse(f"a.b/c/{suffix}").date == to_fraction(when)


@pytest.mark.parametrize(
    ("fraction", "coded"),
    [("25", "W" + code(25)),  # the standard's own form
     ("5", "W7"), ("05", "WW7"), ("005", "WWW7"),
     ("50005", "W" + code(50005))],
)
def test_it_codes_ibip_fractions_with_one_more_w_per_leading_zero(fraction: str,
                                                                  coded: str) -> None:
    when = Decimal(f"1234806360.{fraction}")
    assert ibip_suffix(when) == "34PGRBS" + coded
    assert decode_ibip("8JMKD3MGP8W/" + ibip_suffix(when))[2] == when


def test_it_converts_dates_exactly() -> None:
    assert to_datetime(Decimal("1287588115.3462")) == datetime(2010, 10, 20, 15, 21, 55, 346200,
                                                               tzinfo=UTC)
    assert to_datetime(Fraction(1, 3)) == datetime(1970, 1, 1, 0, 0, 0, 333333, tzinfo=UTC)
    assert to_fraction(datetime(2010, 10, 20, 15, 21, 55, 346200, tzinfo=UTC)) == Decimal(
        "1287588115.3462")


def test_it_runs_the_module_examples() -> None:
    # tests/test_docstrings.py runs them with every module's; run here too because `make
    # mutation` runs this file alone against the codec's mutants.
    assert doctest.testmod(ibi_module).failed == 0


# -- Bad input ----------------------------------------------------------------------------------

NOW = 1287588115
LONGEST_HOSTNAME = "a." + "b" * 60 + "." + "c" * 63 + "." + "d" * 63 + ".e" + "f" * 61  # 253
# Every refusal says exactly what is wrong: the whole message is the test.
BAD_INPUT = [
    (lambda: repository_prefix("localhost", 80),
     "hostname 'localhost' has a single label: the prefix needs a subdomain"),
    (lambda: repository_prefix("mtc_m18.sid.inpe.br", 80),
     "hostname 'mtc_m18.sid.inpe.br': 'mtc_m18' is not a DNS label (1-63 letters, digits or "
     "inner '-')"),
    (lambda: repository_prefix("-m18.sid.inpe.br", 80),
     "hostname '-m18.sid.inpe.br': '-m18' is not a DNS label (1-63 letters, digits or inner '-')"),
    (lambda: repository_prefix("mtc-m18..inpe.br", 80),
     "hostname 'mtc-m18..inpe.br': '' is not a DNS label (1-63 letters, digits or inner '-')"),
    (lambda: repository_prefix("x" * 64 + ".inpe.br", 80),
     "hostname 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.inpe.br': "
     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is not a DNS label "
     "(1-63 letters, digits or inner '-')"),
    (lambda: repository_prefix("150.163.34.243", 80),
     "hostname '150.163.34.243': last label '243' must start with a letter"),
    (lambda: repository_prefix("mtc-m18.sid.inpe.br", 0), "port 0 is not an integer in 1-65535"),
    (lambda: repository_prefix("mtc-m18.sid.inpe.br", 65536),
     "port 65536 is not an integer in 1-65535"),
    (lambda: validate_port(True), "port True is not an integer in 1-65535"),
    (lambda: validate_port("80"), "port '80' is not an integer in 1-65535"),
    (lambda: validate_hostname("mtc-m18.sid.inpé.br"),
     "hostname 'mtc-m18.sid.inpé.br' is not an ASCII domain name"),
    (lambda: ibip("256.1.1.1", 800, NOW),
     "invalid IP address '256.1.1.1': Octet 256 (> 255) not permitted in '256.1.1.1'"),
    (lambda: ibip("150.163.34", 800, NOW),
     "invalid IP address '150.163.34': Expected 4 octets in '150.163.34'"),
    (lambda: ibip("2001::g", 800, NOW),
     "invalid IP address '2001::g': Only hex digits permitted in 'g' in '2001::g'"),
    (lambda: ibip("::ffff:150.163.34.243", 800, NOW),
     "IPv6 '::ffff:150.163.34.243': a dotted IPv4 tail or a zone index cannot be coded"),
    (lambda: ibip("fe80::1%eth0", 800, NOW),
     "IPv6 'fe80::1%eth0': a dotted IPv4 tail or a zone index cannot be coded"),
    (lambda: ibip("0.1.2.3", 800, NOW),
     "IP text '0.1.2.3' starts with '0': the leading zero digit would vanish, so the IBIp "
     "could not be decoded back to it"),
    (lambda: ibip("0:0::1", 800, NOW),
     "IP text '0:0::1' starts with '0': the leading zero digit would vanish, so the IBIp could "
     "not be decoded back to it"),
    (lambda: ibip("150.163.34.243", 70000, NOW), "port 70000 is not an integer in 1-65535"),
    (lambda: ibip("150.163.34.243", 800, IBIP_EPOCH - 1),
     "date 807235199 is before 1995-08-01, the IBIp epoch"),
    (lambda: repository_suffix(datetime(2009, 2, 16, 17, 46)),  # noqa: DTZ001
     "naive datetime: give an aware UTC datetime"),
    (lambda: ibip_suffix(1234806360.5),
     "float date 1234806360.5: give an int, Decimal, Fraction or aware datetime"),
    (lambda: repository_suffix(Fraction(1, 3)),
     "fraction of a second 1/3 has no finite decimal expansion"),
    (lambda: ibip_suffix(Fraction(NOW * 3 + 1, 3)),
     "fraction of a second 1/3 has no finite decimal expansion"),
    (lambda: repository_suffix(Decimal("NaN")), "date Decimal('NaN') is not a finite number"),
    (lambda: repository_suffix("1287588115"),
     "unsupported date '1287588115': give an int, Decimal, Fraction or datetime"),
    (lambda: TemporalDistributor(10), "granularity 10 is not 60 or 10**-k (1, 0.1, 0.01, ...)"),
    (lambda: TemporalDistributor("0.5"),
     "granularity '0.5' is not 60 or 10**-k (1, 0.1, 0.01, ...)"),
    (lambda: TemporalDistributor(0.1),
     "float date 0.1: give an int, Decimal, Fraction or aware datetime"),
    (lambda: TemporalDistributor("soon"),
     "granularity 'soon' is not 60 or 10**-k (1, 0.1, 0.01, ...)"),
    (lambda: TemporalDistributor(1).create(1.5),
     "float date 1.5: give an int, Decimal, Fraction or aware datetime"),
    (lambda: decode_ibip(EXAMPLE_1),
     "'sid.inpe.br/mtc-m18@80/2009/02.16.17.46' is a repository name, not an IBIp"),
    (lambda: to_datetime(10**12), "date 1000000000000 is outside the years 1-9999"),
    (lambda: repository_suffix(10**12), "date 1000000000000 is outside the years 1-9999"),
    (lambda: fraction_digits(Fraction(1)), "fraction of a second 1 is not in [0, 1)"),
    (lambda: fraction_digits(Fraction(-1, 2)), "fraction of a second -1/2 is not in [0, 1)"),
    (lambda: fraction_digits(Fraction(1, 15)),
     "fraction of a second 1/15 has no finite decimal expansion"),
    (lambda: convert_from_decimal(-1, IBIP_DIGITS), "cannot code the negative number -1"),
    (lambda: convert_to_decimal("1.2.a", IPV4_DIGITS),
     "character 'a' is not a digit of '0123456789.'"),
    (lambda: validate_hostname(LONGEST_HOSTNAME + "g"),
     f"hostname '{LONGEST_HOSTNAME}g' is longer than 253 characters"),
    (lambda: ibip(2527928051, 800, NOW), "IP 2527928051 is not a string"),
]
BAD_TEXT = [
    ("", 'empty IBI'),
    (" " + EXAMPLE_1,
     "surrounding whitespace is not accepted in ' sid.inpe.br/mtc-m18@80/2009/02.16.17.46'"),
    (EXAMPLE_1 + "\n",
     "surrounding whitespace is not accepted in 'sid.inpe.br/mtc-m18@80/2009/02.16.17.46\\n'"),
    ("sid.inpe.br", "missing '/' in 'sid.inpe.br'"),
    ("sid.inpe.br/mtc-m18",
     "missing '/' in 'sid.inpe.br/mtc-m18': a repository name is "
     "subdomain/word[.port]/year/MM.DD.hh.mm[.ss[.fraction]]"),
    ("sid.inpe.br/mtc-m18/2009",
     "missing '/' in 'sid.inpe.br/mtc-m18/2009': a repository name is "
     "subdomain/word[.port]/year/MM.DD.hh.mm[.ss[.fraction]]"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46/x",
     "too many '/' in 'sid.inpe.br/mtc-m18/2009/02.16.17.46/x'"),
    ("sid.inpe.br/mtc-m18/2009/13.16.17.46", 'month 13 out of range'),
    ("sid.inpe.br/mtc-m18/2009/00.16.17.46", 'month 0 out of range'),
    ("sid.inpe.br/mtc-m18/2009/02.29.17.46", 'day 29 out of range for 2009-02'),
    ("sid.inpe.br/mtc-m18/2009/02.16.24.46", 'hour 24 out of range'),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.60", 'minute 60 out of range'),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46.60", 'second 60 out of range'),
    ("sid.inpe.br/mtc-m18/09/02.16.17.46", "year '09' is not 4 digits"),
    ("sid.inpe.br/mtc-m18/0000/02.16.17.46", 'year 0000 out of range'),
    ("sid.inpe.br/mtc-m18/2009/2.16.17.46", "month '2' is not 2 digits"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17", "'02.16.17' is not MM.DD.hh.mm[.ss[.fraction]]"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46.05.", "fraction of a second '' is not digits"),
    ("sid.inpe.br/mtc-m18.m80/2009/02.16.17.46", "port 'm80' is not a number"),
    ("sid.inpe.br/mtc-m18@0/2009/02.16.17.46", 'port 0 out of range 1-65535'),
    ("sid.inpe.br/mtc-m18@70000/2009/02.16.17.46", 'port 70000 out of range 1-65535'),
    ("sid.inpe.123/mtc-m18/2009/02.16.17.46",
     "prefix sid.inpe.123/'mtc-m18': hostname 'mtc-m18.sid.inpe.123': last label '123' must "
     "start with a letter"),
    ("sid_inpe.br/mtc-m18/2009/02.16.17.46",
     "prefix sid_inpe.br/'mtc-m18': hostname 'mtc-m18.sid_inpe.br': 'sid_inpe' is not a DNS "
     "label (1-63 letters, digits or inner '-')"),
    ("sid.inpe.br//2009/02.16.17.46",
     "prefix sid.inpe.br/'': hostname '.sid.inpe.br': '' is not a DNS label (1-63 letters, "
     "digits or inner '-')"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46.\u0665",
     "non-ASCII character in 'sid.inpe.br/mtc-m18/2009/02.16.17.46.٥'"),
    ("8JMKD3MGP8W/34PGRBSO", 'letter O is not used in IBIp'),
    ("8JMKD3MGP8W/34PGRB0", 'digit 0 is not used in IBIp'),
    ("8JMKD3MGP8W/34PGRBI", 'letter I is not used in IBIp'),
    ("8JMKD3MGP8W/34PGRB*", "character '*' is not allowed in an IBIp"),
    ("8JMKD3MGP8/34PGRBS",
     "IBIp prefix '8JMKD3MGP8' is not coded-IP, W (IPv4) or X (IPv6), coded-port"),
    ("8JMKD3MGP8WX/34PGRBS",
     "IBIp prefix '8JMKD3MGP8WX' is not coded-IP, W (IPv4) or X (IPv6), coded-port"),
    ("8JMKD3MGP8W/", "IBIp suffix '' is not coded-seconds [W... coded-fraction]"),
    ("8JMKD3MGP8W/34PGRBSW", "IBIp suffix '34PGRBSW' is not coded-seconds [W... coded-fraction]"),
    ("8JMKD3MGP8W/34PGRBSX", "IBIp suffix '34PGRBSX' is not coded-seconds [W... coded-fraction]"),
    ("28JMKD3MGP8W/34PGRBS", "IP code '28JMKD3MGP8' starts with 2, the zero digit"),
    ("8JMKD3MGP8W/234PGRBS", "seconds code '234PGRBS' starts with 2, the zero digit"),
    ("8JMKD3MGP8W" + code(800) + "/34PGRBS", 'port 800 must be left out of an IBIp prefix'),
    ("8JMKD3MGP8W" + code(70000) + "/34PGRBS", 'IBIp port 70000 out of range 1-65535'),
    ("8JMKD3MGP8W/34PGRBSW" + code(50),
     "IBIp fraction 50 ends in a decimal zero (not the shortest)"),
    ("3W/34PGRBS", "IBIp prefix '3W' decodes to '1', not an IPv4 address"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46.05." + "1" * 5000,
     "text of 5040 characters is too long for an IBI"),
    ("3X/34PGRBS", "IBIp prefix '3X' decodes to '1', not an IPv6 address"),
    ("sid.inpe.br/mtc-m18/2009/02.1.17.46", "day '1' is not 2 digits"),
    ("sid.inpe.br/mtc-m18/2009/02.16.7.46", "hour '7' is not 2 digits"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.6", "minute '6' is not 2 digits"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46.5", "second '5' is not 2 digits"),
    ("sid.inpe.br/mtc-m18/2009/02.16.17.46.05.1.2",
     "'02.16.17.46.05.1.2' is not MM.DD.hh.mm[.ss[.fraction]]"),
    ("sid.inpe.br/mtc-m18@65536/2009/02.16.17.46", "port 65536 out of range 1-65535"),
    ("8JMKD3MGP8W23/34PGRBS", "port code '23' starts with 2, the zero digit"),
    ("8JMKD3MGP8W/34PGRBSW23", "fraction code '23' starts with 2, the zero digit"),
    ("8JMKD3MGP8W" + code(65536) + "/34PGRBS", "IBIp port 65536 out of range 1-65535"),
]


def _english(message: str) -> str:
    return message


@pytest.mark.parametrize(("call", "message"), BAD_INPUT)
def test_it_refuses_bad_input_with_a_reason(call: object, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == message
    if isinstance(raised.value, IbiError):
        assert raised.value.translated(_english) == message


@pytest.mark.parametrize(("text", "message"), BAD_TEXT)
def test_it_refuses_malformed_ibis_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(IbiError) as raised:
        parse(text)
    assert str(raised.value) == message
    assert raised.value.translated(_english) == message


def test_it_refuses_a_non_string_ibi() -> None:
    with pytest.raises(TypeError, match="^an IBI is a str, not bytes$"):
        parse(b"8JMKD3MGP8W/34PGRBS")


def test_a_refusal_reads_in_the_readers_language_to_its_innermost_reason() -> None:
    catalogue = {  # as the pt-BR catalogue translates the two messages
        "prefix %(subdomain)s/%(word_port)s: %(exc)s":
            "prefixo %(subdomain)s/%(word_port)s: %(exc)s",
        "hostname %(hostname)s: last label %(labels_1)s must start with a letter":
            "hostname %(hostname)s: o último rótulo %(labels_1)s deve começar por uma letra",
    }
    with pytest.raises(IbiError) as raised:
        parse("sid.inpe.123/mtc-m18/2009/02.16.17.46")
    assert raised.value.translated(catalogue.get) == (
        "prefixo sid.inpe.123/'mtc-m18': hostname 'mtc-m18.sid.inpe.123': o último rótulo '123' "
        "deve começar por uma letra")


def test_it_accepts_what_lies_just_inside_every_limit() -> None:
    assert parse("sid.inpe.br/mtc-m18/0001/01.01.00.00").date == -62135596800
    assert parse("sid.inpe.br/mtc-m18.65535/2009/02.16.17.46").port == 65535
    assert parse("sid.inpe.br/mtc-m18/2009/02.16.17.46").port == 80
    assert parse("8JMKD3MGP8W" + code(65535) + "/34PGRBS").port == 65535
    assert parse("8JMKD3MGP8W/34PGRBS").port == 800
    assert len(LONGEST_HOSTNAME) == 253
    assert validate_hostname(LONGEST_HOSTNAME) == LONGEST_HOSTNAME
    assert fraction_digits(Fraction(1, 10**60)) == "0" * 59 + "1"
    assert fraction_digits(Fraction(1, 5)) == "2" and fraction_digits(Fraction(3, 4)) == "75"


def test_it_keeps_the_sign_and_the_shortest_spelling_of_a_date() -> None:
    assert str(to_decimal(Fraction(-5149, 4))) == "-1287.25"
    assert str(to_decimal(0)) == "0" and str(to_decimal(Fraction(-1, 2))) == "-0.5"


def test_it_codes_an_ip_given_as_an_address_or_in_either_case() -> None:
    assert ibip(ipaddress.IPv4Address("150.163.34.243"), 800, NOW) == ibip("150.163.34.243", 800,
                                                                           NOW)
    assert ibip(ipaddress.IPv6Address("2001:db8::1"), 80, NOW) == ibip("2001:DB8::1", 80, NOW)


# -- Properties ---------------------------------------------------------------------------------

GRANULARITIES = [Fraction(60), Fraction(1), Fraction(1, 10), Fraction(1, 100), Fraction(1, 1000)]
label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
last_label = st.from_regex(r"[a-z]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
hostnames = st.builds(lambda words, last: ".".join([*words, last]),
                      st.lists(label, min_size=1, max_size=3), last_label)
ports = st.integers(1, 65535)
ipv4s = st.ip_addresses(v=4).map(str).filter(lambda text: not text.startswith("0"))
# A dotted IPv4 tail (Python >= 3.13 prints IPv4-mapped addresses so) is outside Table 7.5.
ipv6s = st.ip_addresses(v=6).map(str).filter(lambda text: not text.startswith("0") and
                                             "." not in text)
seconds = st.integers(IBIP_EPOCH, 2**33)


@st.composite
def dates(draw: st.DrawFn, earliest: int = IBIP_EPOCH) -> int | Decimal | Fraction:
    """Exact POSIX dates with 0-6 fraction digits, as any of the accepted types."""
    places = draw(st.integers(0, 6))
    value = draw(st.integers(earliest, 2**33)) + Fraction(draw(st.integers(0, 10**places - 1)),
                                                          10**places)
    kind = draw(st.sampled_from(["int", "decimal", "fraction"]))
    if kind == "int" and value.denominator == 1:
        return int(value)
    return to_decimal(value) if kind == "decimal" else value


@st.composite
def minted_dates(draw: st.DrawFn) -> Decimal:
    """A date for a suffix, as the temporal distributor gives it at granularity 1 ... 0.001."""
    distributor = TemporalDistributor(draw(st.sampled_from(GRANULARITIES[1:])))
    return distributor.create(draw(dates()))[0]


@given(hostnames, ports, minted_dates())
def test_a_minted_repository_name_parses_back_to_itself(host: str, port: int,
                                                        when: Decimal) -> None:
    text = repository_name(host, port, when)
    parsed = parse(text)
    assert parse(str(parsed)) == parsed and str(parse(str(parsed))) == text
    assert (parsed.hostname, parsed.port, parsed.date) == (host, port, when)
    assert parse(text.upper()) == parsed and str(parse(text.upper())) == text


@given(st.one_of(ipv4s, ipv6s), ports, minted_dates())
def test_a_minted_ibip_parses_back_to_itself(ip: str, port: int, when: Decimal) -> None:
    text = ibip(ip, port, when)
    parsed = parse(text)
    assert parse(str(parsed)) == parsed and str(parse(str(parsed))) == text
    assert parse(text.lower()) == parsed and isinstance(parsed, Ibi)


@given(st.one_of(ipv4s, ipv6s), ports, dates())
def test_an_ibip_decodes_to_what_it_was_minted_from(ip: str, port: int, when: object) -> None:
    assert decode_ibip(ibip(ip, port, when)) == (ip, port, when)


@given(st.tuples(st.one_of(ipv4s, ipv6s), ports, dates()),
       st.tuples(st.one_of(ipv4s, ipv6s), ports, dates()))
def test_distinct_inputs_give_distinct_ibips(a: tuple, b: tuple) -> None:
    assume(a != b)
    assert ibip(*a) != ibip(*b)


@given(hostnames, ports, dates(earliest=0), dates(earliest=0))
def test_distinct_dates_give_distinct_repository_names(host: str, port: int, a: object,
                                                       b: object) -> None:
    assume(a != b)
    assert repository_name(host, port, a) != repository_name(host, port, b)


@given(st.sampled_from(GRANULARITIES), st.lists(dates(), min_size=1, max_size=20), st.booleans())
def test_the_distributor_always_moves_forward(r: Fraction, currents: list, in_order: bool) -> None:
    distributor = TemporalDistributor(r)
    previous = None
    # Unsorted currents are a clock stepping back: the suffix dates must still increase.
    for current in sorted(currents, key=to_fraction) if in_order else currents:
        date, creation = distributor.create(current)
        rounded = r * (to_fraction(current) // r)
        assert previous is None or date > previous
        assert date <= creation and creation >= rounded
        assert to_fraction(date) % r == 0 and to_fraction(creation) % r == 0
        previous = date


@given(st.lists(st.tuples(st.sampled_from(GRANULARITIES), dates()), min_size=1, max_size=20))
def test_changing_the_granularity_keeps_dates_increasing(calls: list) -> None:
    distributor, previous = TemporalDistributor(), None
    for r, current in calls:
        distributor.granularity = r
        date, creation = distributor.create(current)
        assert previous is None or date > previous
        assert creation >= r * (to_fraction(current) // r)
        previous = date
    assert distributor.last == previous


@pytest.mark.parametrize(
    ("given_r", "r"),
    [(60, Decimal(60)), (1, Decimal(1)), ("0.01", Decimal("0.01")),
     (Decimal("0.001"), Decimal("0.001")), (Fraction(1, 10), Decimal("0.1"))],
)
def test_it_accepts_the_granularities_of_the_standard(given_r: object, r: Decimal) -> None:
    assert TemporalDistributor(given_r).granularity == r


def test_a_minute_granularity_mints_minutes() -> None:
    distributor = TemporalDistributor(60)
    assert distributor.create(Decimal("1287588115.3462")) == (1287588060, 1287588060)
    assert distributor.create(Decimal("1287588116")) == (1287588120, 1287588120)


def test_ipaddress_strategies_give_codable_texts() -> None:
    # Guards the filters above: str() of an address is the compressed, lower-case text.
    assert str(ipaddress.ip_address("2001:0DB8::0001")) == "2001:db8::1"


def test_one_canonical_spelling_and_one_sameness_for_every_part_of_the_app():
    ibi = ibi_module
    assert ibi.canonical("sid.INPE.br/MTC-m19/2013/09.04.12.27.57") == (
        "sid.inpe.br/mtc-m19/2013/09.04.12.27.57")
    assert ibi.canonical("8jmkd3mgp7w/3epgue5") == "8JMKD3MGP7W/3EPGUE5"
    with pytest.raises(ibi.IbiError):
        ibi.canonical("sid.inpe.br/mtc-m19/2013/13.04.12.27.57")  # month 13
    assert ibi.same("sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
                    "sid.INPE.br/MTC-m18/2009/02.16.17.46")
    assert not ibi.same("sid.inpe.br/mtc-m18/2009/02.16.17.46",
                        "sid.inpe.br/mtc-m18/2009/02.16.17.47")
    # A repository name and an IBIp are never one IBI here, nor is what is no IBI.
    assert not ibi.same("sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "8JMKD3MGP7W/3EPGUE5")
    assert not ibi.same("not an ibi", "not an ibi") and not ibi.same(None, "8JMKD3MGP7W/3EPGUE5")
