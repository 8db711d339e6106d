"""A dc:type or dc:rights stored as the label of one of the deposit's choices (in English or
Portuguese, any case or accents), as a licence's SPDX id or short name, or as a choice's URI in
another spelling (https, a last slash) becomes the choice's URI, as deposits store them since;
one value named twice in an item is kept once. The tables are this migration's own (history:
never today's code)."""
import unicodedata

from django.db import migrations

COAR = "http://purl.org/coar/resource_type/"
# COAR resource types (http://purl.org/coar/resource_type/<id>) by their labels, folded.
TYPES = {'report': 'c_93fc',
 'technical report': 'c_18gh',
 'research report': 'c_18ws',
 'journal article': 'c_6501',
 'conference paper': 'c_5794',
 'conference proceedings': 'c_f744',
 'conference poster': 'c_6670',
 'lecture or presentation': 'c_8544',
 'book': 'c_2f33',
 'book chapter': 'c_3248',
 'thesis': 'c_46ec',
 'doctoral thesis': 'c_db06',
 'master thesis': 'c_bdcc',
 'bachelor thesis': 'c_7a1f',
 'preprint': 'c_816b',
 'working paper': 'c_8042',
 'technical documentation': 'c_71bd',
 'dataset': 'c_ddb1',
 'software': 'c_5ce6',
 'image': 'c_c513',
 'map': 'c_12cd',
 'video': 'c_12ce',
 'sound': 'c_18cc',
 'text': 'c_18cf',
 'other': 'c_1843',
 'relatorio': 'c_93fc',
 'relatorio tecnico': 'c_18gh',
 'relatorio de pesquisa': 'c_18ws',
 'artigo de periodico': 'c_6501',
 'trabalho em evento': 'c_5794',
 'anais de evento': 'c_f744',
 'poster em evento': 'c_6670',
 'palestra ou apresentacao': 'c_8544',
 'livro': 'c_2f33',
 'capitulo de livro': 'c_3248',
 'tese': 'c_46ec',
 'tese de doutorado': 'c_db06',
 'dissertacao de mestrado': 'c_bdcc',
 'trabalho de conclusao de curso': 'c_7a1f',
 'documento de trabalho': 'c_8042',
 'documentacao tecnica': 'c_71bd',
 'conjunto de dados': 'c_ddb1',
 'imagem': 'c_c513',
 'mapa': 'c_12cd',
 'som': 'c_18cc',
 'texto': 'c_18cf',
 'outro': 'c_1843',
 'lecture': 'c_8544',
 'book part': 'c_3248'}
# Licences by their labels, short names and SPDX ids, folded.
RIGHTS = {'creative commons attribution 4.0 (cc by 4.0)': 'https://creativecommons.org/licenses/by/4.0/',
 'creative commons attribution-sharealike 4.0 (cc by-sa 4.0)': 'https://creativecommons.org/licenses/by-sa/4.0/',
 'creative commons attribution-noncommercial 4.0 (cc by-nc 4.0)': 'https://creativecommons.org/licenses/by-nc/4.0/',
 'creative commons attribution-noncommercial-sharealike 4.0 (cc by-nc-sa 4.0)': 'https://creativecommons.org/licenses/by-nc-sa/4.0/',
 'creative commons attribution-noderivatives 4.0 (cc by-nd 4.0)': 'https://creativecommons.org/licenses/by-nd/4.0/',
 'creative commons attribution-noncommercial-noderivatives 4.0 (cc by-nc-nd 4.0)': 'https://creativecommons.org/licenses/by-nc-nd/4.0/',
 'public domain dedication (cc0 1.0)': 'https://creativecommons.org/publicdomain/zero/1.0/',
 'mit license': 'https://spdx.org/licenses/MIT.html',
 'apache license 2.0': 'https://spdx.org/licenses/Apache-2.0.html',
 'gnu general public license 3.0 or later': 'https://spdx.org/licenses/GPL-3.0-or-later.html',
 'in copyright: all rights reserved': 'http://rightsstatements.org/vocab/InC/1.0/',
 'creative commons atribuicao 4.0 (cc by 4.0)': 'https://creativecommons.org/licenses/by/4.0/',
 'creative commons atribuicao-compartilhaigual 4.0 (cc by-sa 4.0)': 'https://creativecommons.org/licenses/by-sa/4.0/',
 'creative commons atribuicao-naocomercial 4.0 (cc by-nc 4.0)': 'https://creativecommons.org/licenses/by-nc/4.0/',
 'creative commons atribuicao-naocomercial-compartilhaigual 4.0 (cc by-nc-sa 4.0)': 'https://creativecommons.org/licenses/by-nc-sa/4.0/',
 'creative commons atribuicao-semderivacoes 4.0 (cc by-nd 4.0)': 'https://creativecommons.org/licenses/by-nd/4.0/',
 'creative commons atribuicao-naocomercial-semderivacoes 4.0 (cc by-nc-nd 4.0)': 'https://creativecommons.org/licenses/by-nc-nd/4.0/',
 'dedicacao ao dominio publico (cc0 1.0)': 'https://creativecommons.org/publicdomain/zero/1.0/',
 'licenca mit': 'https://spdx.org/licenses/MIT.html',
 'licenca apache 2.0': 'https://spdx.org/licenses/Apache-2.0.html',
 'licenca publica geral gnu 3.0 ou posterior (gpl)': 'https://spdx.org/licenses/GPL-3.0-or-later.html',
 'protegido por direitos autorais: todos os direitos reservados': 'http://rightsstatements.org/vocab/InC/1.0/',
 'cc by 4.0': 'https://creativecommons.org/licenses/by/4.0/',
 'cc-by-4.0': 'https://creativecommons.org/licenses/by/4.0/',
 'cc by-sa 4.0': 'https://creativecommons.org/licenses/by-sa/4.0/',
 'cc-by-sa-4.0': 'https://creativecommons.org/licenses/by-sa/4.0/',
 'cc by-nc 4.0': 'https://creativecommons.org/licenses/by-nc/4.0/',
 'cc-by-nc-4.0': 'https://creativecommons.org/licenses/by-nc/4.0/',
 'cc by-nc-sa 4.0': 'https://creativecommons.org/licenses/by-nc-sa/4.0/',
 'cc-by-nc-sa-4.0': 'https://creativecommons.org/licenses/by-nc-sa/4.0/',
 'cc by-nd 4.0': 'https://creativecommons.org/licenses/by-nd/4.0/',
 'cc-by-nd-4.0': 'https://creativecommons.org/licenses/by-nd/4.0/',
 'cc by-nc-nd 4.0': 'https://creativecommons.org/licenses/by-nc-nd/4.0/',
 'cc-by-nc-nd-4.0': 'https://creativecommons.org/licenses/by-nc-nd/4.0/',
 'cc0 1.0': 'https://creativecommons.org/publicdomain/zero/1.0/',
 'cc0-1.0': 'https://creativecommons.org/publicdomain/zero/1.0/',
 'mit': 'https://spdx.org/licenses/MIT.html',
 'apache-2.0': 'https://spdx.org/licenses/Apache-2.0.html',
 'gpl-3.0-or-later': 'https://spdx.org/licenses/GPL-3.0-or-later.html'}


def fold(value):
    plain = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return " ".join(plain.lower().replace("_", " ").split())


def bare(uri):
    return uri.strip().lower().removeprefix("https://").removeprefix("http://").rstrip("/")


def uri_of(element, value):
    """The URI a stored value names, or None."""
    if element == "type":
        uris = {bare(COAR + coar): COAR + coar for coar in TYPES.values()}
        found = TYPES.get(fold(value))
        return COAR + found if found else uris.get(bare(value))
    uris = {bare(uri): uri for uri in RIGHTS.values()}
    return RIGHTS.get(fold(value)) or uris.get(bare(value))


def forwards(apps, schema_editor):
    DcValue = apps.get_model("archive", "DcValue")
    item, seen, changed, twice = None, set(), [], []
    rows = (DcValue.objects.filter(element__in=["type", "rights"])
            .order_by("item_id", "element", "position", "id").iterator(chunk_size=2000))
    for row in rows:
        if row.item_id != item:  # rows come item by item: remember one item's values only
            item, seen = row.item_id, set()
        uri = uri_of(row.element, row.value)
        value = uri or row.value
        key = (row.element, value)
        if key in seen:
            twice.append(row.id)
            continue
        seen.add(key)
        if uri and uri != row.value:
            row.value = uri
            changed.append(row)
        if len(changed) >= 1000:
            DcValue.objects.bulk_update(changed, ["value"])
            changed = []
    DcValue.objects.bulk_update(changed, ["value"])
    for start in range(0, len(twice), 1000):
        DcValue.objects.filter(id__in=twice[start:start + 1000]).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0017_outbox_and_copy_jobs"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True),
    ]
