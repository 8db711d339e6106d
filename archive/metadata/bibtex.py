"""BibTeX of a Record: one entry, its type from dc:type (kinds.py) and a thesis's degree
(citing.py: @phdthesis, @mastersthesis with `school`, its `type` as ABNT words it, its
advisors in `note`), an article's `journal`, `volume`,
`number` (its issue), `pages` and `doi`, LaTeX specials escaped.
Pure: the landing page, the persistent URL's ``:(bibtex)`` and ``Accept: application/x-bibtex``
all write it here.

    >>> from .record import Creator, Record
    >>> print(entry(Record(ibi="iconet.com.br/banon/2009/09.09.22.01", ibip="",
    ...       title="50% & more", date="2009", persistent_url="http://urlib.net/x",
    ...       creators=(Creator("Banon, Gerald"),))))
    @misc{banon200950,
      author = {Banon, Gerald},
      title = {50\\% \\& more},
      year = {2009},
      howpublished = {\\url{http://urlib.net/x}},
      url = {http://urlib.net/x},
      note = {IBI: iconet.com.br/banon/2009/09.09.22.01}
    }
"""
from __future__ import annotations

import re
import unicodedata

from .csl import genre
from .kinds import kind_of
from .record import Record

# LaTeX's special characters, written so that BibTeX prints them literally.
_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%",
    "&": r"\&", "_": r"\_", "^": r"\^{}", "~": r"\~{}",
}
_SPECIAL = re.compile("|".join(re.escape(c) for c in _ESCAPES))
# Where each entry type wants the publishing body (BibTeX's standard styles).
_PUBLISHER_FIELD = {"techreport": "institution", "phdthesis": "school",
                    "mastersthesis": "school"}
# Where each entry type names the work it appeared in.
_CONTAINER_FIELD = {"article": "journal", "incollection": "booktitle",
                    "inproceedings": "booktitle"}
# A bachelor's thesis has no entry type of its own: a @mastersthesis whose `type` says so.
_THESIS = {"doctoral": ("phdthesis", ""), "masters": ("mastersthesis", ""),
           "bachelor": ("mastersthesis", "Bachelor's thesis")}


def _portuguese(record: Record) -> bool:
    return bool(record.degree) and record.language.lower().split("-")[0] in ("pt", "por")


def escape(text: str) -> str:
    r"""`escape("50% & {x}") == r"50\% \& \{x\}"`; line breaks become spaces."""
    text = " ".join(text.split())
    return _SPECIAL.sub(lambda m: _ESCAPES[m.group()], text)


def key(record: Record) -> str:
    """ASCII letters and digits only: the first author's surname, the year, a title word."""
    first = record.creators[0].family if record.creators else ""
    words = [first, record.year, *record.title.split()[:1]]
    ascii_text = unicodedata.normalize("NFKD", "".join(words)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", ascii_text).lower() or "item"


def entry(record: Record) -> str:
    """The BibTeX entry; a tombstone's (no creators) keeps title, year and URL."""
    kind, thesis_type = _THESIS.get(record.degree, (kind_of(record.types).bibtex, ""))
    month = record.date[5:7] if re.match(r"[0-9]{4}-[0-9]{2}", record.date) else ""
    fields = [
        ("author", " and ".join(escape(c.name) for c in record.creators)),
        ("title", escape(record.title)),
        ("year", escape(record.year)),
        ("month", str(int(month)) if month.isdigit() and 1 <= int(month) <= 12 else ""),
        (_CONTAINER_FIELD.get(kind, "journal"), escape(record.container_title)),
        ("volume", escape(record.volume)),
        ("number", escape(record.issue)),  # BibTeX's name for an issue
        ("pages", escape(record.pages).replace("-", "--")),
        (_PUBLISHER_FIELD.get(kind, "publisher"), escape(record.publisher)),
        # A Brazilian thesis's type as ABNT words it (abnTeX2 prints it: "Tese (Doutorado em
        # Física)"); else the bachelor's, which has no entry type of its own.
        ("type", escape(genre(record)) if _portuguese(record) else thesis_type),
        ("number", escape(record.identifiers[0]) if record.identifiers and kind == "techreport"
         else ""),
        ("language", escape(record.language)),
        ("doi", escape(record.doi)),
        ("howpublished", rf"\url{{{record.persistent_url}}}" if kind == "misc" else ""),
        ("url", record.persistent_url),
        # BibTeX has no advisor: a note, as the thesis templates write it.
        ("note", "; ".join([*(f"Advisor: {escape(c.name)}" for c in record.advisors),
                            *(f"Co-advisor: {escape(c.name)}" for c in record.co_advisors),
                            f"IBI: {escape(record.ibi)}",
                            *(f"Handle: {escape(h)}" for h in record.handles)])),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@{kind}{{{key(record)},\n{body}\n}}"
