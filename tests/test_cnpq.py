"""CNPq's Tabela de Áreas do Conhecimento as shipped (archive/profiles/data/cnpq-areas.tsv):
the whole table, each code's check digit right and its parent present, and the 104 codes the
partial table had kept with their labels (tests/data/cnpq/areas-before.tsv, that table)."""
from __future__ import annotations

from pathlib import Path

from archive.profiles import cnpq

BEFORE = Path(__file__).resolve().parent / "data" / "cnpq" / "areas-before.tsv"
# The codes loaded from CNPq's table with a right check digit (1 288) and the two the
# partial table had that it spelt otherwise (2.00.00.00-6, 9.00.00.00-5).
LOADED = 1290


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def test_every_code_has_its_check_digit_and_a_label_once():
    table = cnpq.table()
    assert all(cnpq.is_code(a.code) and a.label_pt_br for a in table)
    assert len({a.code for a in table}) == len(table) >= LOADED


def test_every_code_lies_under_one_in_the_table():
    codes = {a.code for a in cnpq.table()}
    orphans = [code for code in codes if cnpq.parent(code) not in (None, *codes)]
    assert orphans == []
    grand = sorted(code for code in codes if cnpq.parent(code) is None)
    assert grand == ["1.00.00.00-3", "2.00.00.00-6", "3.00.00.00-9", "4.00.00.00-1",
                     "5.00.00.00-4", "6.00.00.00-7", "7.00.00.00-0", "8.00.00.00-2",
                     "9.00.00.00-5"]


def test_it_reaches_the_specialities_of_every_grand_area_but_others():
    depth = {a.code[0] for a in cnpq.table() if not a.code.endswith("00-" + a.code[-1])}
    assert depth == set("12345678")
    assert ("6.01.01.00-8", "Teoria do Direito") in {(a.code, a.label_pt_br)
                                                    for a in cnpq.table()}


def test_it_is_sorted_by_code_one_row_of_three_columns_a_line():
    rows = lines(cnpq.DATA)
    assert all(row.count("\t") == 2 for row in rows)
    codes = [row.split("\t")[0] for row in rows]
    assert codes == sorted(codes) == [a.code for a in cnpq.table()]


def test_the_partial_tables_codes_keep_their_labels_in_both_languages():
    before = {tuple(row.split("\t")) for row in lines(BEFORE)}
    assert len(before) == 104
    assert before <= {(a.code, a.label_pt_br, a.label_en) for a in cnpq.table()}
