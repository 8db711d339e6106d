"""`manage.py ibi`: mint, parse and encode from the command line; one-line errors."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from archive.identifiers import ibi


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("ibi", *args, stdout=out)
    return out.getvalue()


def test_encode_gives_both_forms_of_the_standards_example():
    out = run("encode", "--host", "mtc-m18.sid.inpe.br", "--port", "80",
              "--ip", "150.163.34.243", "--ip-port", "800", "--date", "2009-02-16T17:46:00Z")
    assert out == "sid.inpe.br/mtc-m18/2009/02.16.17.46 8JMKD3MGP8W/34PGRBS\n"


def test_parse_decodes_an_ibip_in_any_case():
    out = run("parse", "8jmkd3mgp8w/34pgrbs")
    assert out.splitlines() == ["form: ibip", "canonical: 8JMKD3MGP8W/34PGRBS",
                                "ip: 150.163.34.243", "port: 800", "date: 2009-02-16T17:46:00Z"]


def test_parse_reads_a_legacy_repository_name():
    out = run("parse", "sid.INPE.br/MTC-m18@80/2009/02.16.17.46")
    assert "form: rep" in out
    assert "canonical: sid.inpe.br/mtc-m18@80/2009/02.16.17.46" in out


@pytest.mark.django_db
def test_mint_prints_count_distinct_pairs(settings):
    settings.IBI_GRANULARITY = ibi.to_decimal(1) / 100
    lines = run("mint", "--count", "3").splitlines()
    assert len(lines) == 3
    pairs = [line.split(" ") for line in lines]
    assert len({rep for rep, _ in pairs}) == 3
    for rep, ibip in pairs:
        assert ibi.parse(rep).date == ibi.parse(ibip).date


@pytest.mark.parametrize(("args", "message"), [
    (["parse", "sid.inpe.br/mtc-m18/2009/13.16.17.46"], "month 13 out of range"),
    (["parse", "8JMKD3MGP8W/34PGRBO"], "O"),
    (["encode", "--host", "localhost", "--ip", "1.2.3.4", "--date", "2009-02-16T17:46Z"],
     "single label"),
    (["encode", "--host", "a.b", "--port", "70000", "--ip", "1.2.3.4",
      "--date", "2009-02-16T17:46Z"], "65535"),
    (["encode", "--host", "a.b", "--ip", "1.2.3.999", "--date", "2009-02-16T17:46Z"], "999"),
    (["encode", "--host", "a.b", "--ip", "1.2.3.4", "--date", "2009-02-16T17:46"], "UTC offset"),
    (["mint", "--count", "0"], "at least 1"),
])
def test_user_errors_are_one_clear_line(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_the_command_line_prints_one_line_and_no_traceback():
    import subprocess
    import sys
    from pathlib import Path

    result = subprocess.run(
        [sys.executable, "manage.py", "ibi", "parse", "not-an-ibi"], text=True,
        capture_output=True, cwd=Path(__file__).resolve().parent.parent, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0
    assert result.stderr.startswith("CommandError: ")
