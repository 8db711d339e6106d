"""Records every metadata format is tested on: full, minimal, a tombstone, odd characters."""
from __future__ import annotations

from datetime import UTC, datetime

from archive.metadata.record import Creator, FileRef, Record

WHEN = datetime(2013, 9, 4, 12, 27, 57, tzinfo=UTC)

FULL = Record(
    ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    title="Relatório de atividades", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    landing_url="http://archive.example/items/sid.inpe.br/mtc-m19/2013/09.04.12.27.57",
    creators=(Creator("Banon, Gerald J. F.", orcid="0000-0002-1825-0097"),
              Creator("Instituto Nacional de Pesquisas Espaciais")),
    contributors=("Souza, Maria",), subjects=("IBI", "persistent identifiers"),
    descriptions=("An abstract.\nOn two lines.",), publisher="INPE", date="2013-09-04",
    language="pt-BR", types=("Relatório técnico",), rights=(
        "https://creativecommons.org/licenses/by/4.0/", "All rights reserved"),
    identifiers=("INPE-1234-RPQ/567", "10.1234/abc", "https://example.org/x"),
    formats=("application/pdf",),
    files=(FileRef("report.pdf", "http://archive.example/col/x/doc/report.pdf", 1024,
                   "application/pdf"),),
    created=WHEN, updated=WHEN, edition_number=2,
    previous_edition="http://urlib.net/8JMKD3MGP7W/3EPGUE4",
    next_edition="http://urlib.net/8JMKD3MGP7W/3EPGUE6",
    translation_of="http://urlib.net/8JMKD3MGP7W/3EPGUE3")
MINIMAL = Record(ibi="x.example/a/2020/01.02.03.04", ibip="", title="",
                 persistent_url="http://x.example/x.example/a/2020/01.02.03.04")
TOMBSTONE = Record(ibi="x.example/a/2020/01.02.03.05", ibip="ABCDEFGHIJK/1",
                   title="Withdrawn work", persistent_url="http://x.example/ABCDEFGHIJK/1",
                   date="2020", created=WHEN, updated=WHEN, state="Deleted",
                   deleted_at=datetime(2021, 5, 6, tzinfo=UTC),
                   deletion_reason="Removed at the author's request")
ODD = Record(ibi="x.example/a/2020/01.02.03.06", ibip="ABCDEFGHIJK/2",
             title='<b>"Bold"</b> & \x07bell ]]> 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', persistent_url="http://x.example/y?a=1&b=2",
             creators=(Creator("D'Ávila, José <j@x>\x1b"), Creator(" , ")),
             subjects=("", "  ", "ok\x00"), date="setembro de 2013", language="not a tag!",
             types=("http://purl.org/coar/resource_type/c_ddb1",), publisher=" \x0b ")

