"""The suite's one toolkit: what tests make and share, made the way the repository makes it.

    from tests import factories as make

    report = make.item("report.pdf", ("data.csv", b"a,b\\n1,2\\n"), title="Relatório",
                       language="pt-BR", dc={"creator": ["Banon, Gerald"]})
    second = make.item(previous_edition=report)      # an edition
    english = make.translation(report, "en")          # a translation
    make.as_copy(report, source="http://b.example")   # held here as a Copy
    response = make.posted(librarian_api, title="T")  # a deposit through the REST API
    record = make.deposited(server, token, "T", "a.txt")  # …through a live server's API
    make.wait_until(lambda: counts(report.pk)["total"] == 1, what="the access counted")

Items go through archive.deposit.services (their IBIs minted, their files stored under
col/<repository name>/doc/), API deposits through the API's own parsers, admin deposits
through the admin's form. The fixtures (a reader, a librarian, API clients, a throw-away
PostgreSQL database) are conftest.py's.
"""
from __future__ import annotations

import ast
import functools
import io
import json
import re
import struct
import subprocess
import time
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from archive.communities import services as tree
from archive.deposit import services
from archive.models import (
    Collection,
    CollectionRole,
    Community,
    DcValue,
    FilePage,
    Item,
    ItemFile,
    MetadataField,
    ProfileField,
    RegisteredArchive,
    Submission,
    SubmissionProfile,
    Workflow,
)
from archive.registry.names import Qualified
from archive.usage import counter as access_counter
from archive.usage.selectors import item_counts

TITLE = "Ensuring persistence"
ITEMS = "/api/items/"
# A file: its name, or (name, bytes), or (name, bytes, the content type the client declares).
File = str | tuple[str, bytes] | tuple[str, bytes, str]
T = TypeVar("T")


def _file(spec: File) -> tuple[str, bytes, str]:
    if isinstance(spec, str):
        return spec, f"bytes of {spec}".encode(), ""
    name, data, *declared = spec
    return name, data, declared[0] if declared else ""


def upload(spec: File = "paper.pdf") -> services.Upload:
    """A file on its way in, as the deposit services take it."""
    name, data, declared = _file(spec)
    return services.Upload(name=name, file=io.BytesIO(data), content_type=declared)


# -- Items, through the deposit services --------------------------------------------------------

def dc_field(element: str) -> MetadataField:
    """The registry's dc.<element>, unqualified (for SQL written behind the ORM's back)."""
    return MetadataField.objects.get(schema__name="dc", element=element, qualifier="")


def dc_value(item: Item, element: str, value: str, position: int = 0, **fields) -> DcValue:
    """A value of dc.<element> written as it stands (no service checks it): a value stored
    before today's checks, e.g. a date no longer accepted."""
    field = dc_field(element)
    return DcValue.objects.create(item=item, field=field, element=field.dc_element,
                                  value=value, position=position, **fields)


def item(*files: File, title: str = TITLE, language: str = "",
         dc: dict[str, Sequence[Any]] | None = None, bare: bool = False, **fields) -> Item:
    """A new Original with these files (one paper.pdf when none is named; none at all when
    `bare`: it is reached at its landing page), through services.item_deposit: `fields` are
    its other arguments (previous_edition, translation_of, target_file, transferable …)."""
    specs = () if bare else files or ("paper.pdf",)
    return services.item_deposit(title=title, language=language, dc=dc,
                                 uploads=[upload(spec) for spec in specs], **fields)


def file_pages(file: ItemFile, texts: Sequence[str], *, first: int = 1,
               source: str = FilePage.Source.LAYER) -> list[FilePage]:
    """A file's text, page by page from `first`, as the extraction stores it (issue 37)."""
    return FilePage.objects.bulk_create(
        FilePage(file=file, number=number, text=text, source=source)
        for number, text in enumerate(texts, start=first))


def community(slug: str, parent: Community | None = None, **fields) -> Community:
    """A community through the tree's services, named after its slug in both languages
    unless `fields` name it."""
    return tree.community_save(community=Community(
        slug=slug, parent=parent, **{"name_pt_br": f"Comunidade {slug}",
                                     "name_en": f"Community {slug}", **fields}))


def collection(slug: str, under: Community, **fields) -> Collection:
    """A collection of `under` through the tree's services (`fields`: its access defaults,
    description …)."""
    return tree.collection_save(collection=Collection(
        slug=slug, community=under, **{"name_pt_br": f"Coleção {slug}",
                                       "name_en": f"Collection {slug}", **fields}))


# The collections the DSpace exports of tests/data/dspace name in their `collections` files,
# by Handle: slug → (Handle, community).
DSPACE_COLLECTIONS = {
    "inpe-teses": ("123456789/1", "inpe"),
    "teses-ufc": ("123456789/1000", "ufc"),
    "dissertacoes-ufc": ("123456789/1010", "ufc"),
    "bdtd-ufc": ("123456789/1020", "ufc"),
}


def dspace_collections() -> dict[str, Collection]:
    """The collections of tests/data/dspace's exports, each keeping its DSpace Handle (as an
    import with --map-collections leaves them), so that `importsaf` places their items."""
    made, tops = {}, {}
    for slug, (handle, top) in DSPACE_COLLECTIONS.items():
        if top not in tops:
            tops[top] = (Community.objects.filter(slug=top).first() or community(top))
        made[slug] = (Collection.objects.filter(slug=slug).first()
                      or collection(slug, tops[top], handle=handle))
    return made


ARTICLE_HANDLE = "123456789/7001"
ARTICLE_DOI = "10.1590/s0102-261x2020000100007"
ARTICLE_DUBLIN_CORE = """<?xml version="1.0" encoding="utf-8" standalone="no"?>
<dublin_core schema="dc">
  <dcvalue element="contributor" qualifier="author">Silva, Ana Paula</dcvalue>
  <dcvalue element="contributor" qualifier="author">Souza, Marcos</dcvalue>
  <dcvalue element="date" qualifier="issued">2020-03</dcvalue>
  <dcvalue element="identifier" qualifier="uri">http://hdl.handle.net/{handle}</dcvalue>
  <dcvalue element="identifier" qualifier="uri">https://doi.org/{doi}</dcvalue>
  <dcvalue element="language" qualifier="iso">pt_BR</dcvalue>
  <dcvalue element="relation" qualifier="ispartof">Revista Brasileira de Cartografia</dcvalue>
  <dcvalue element="title" qualifier="none" language="pt_BR">{title}</dcvalue>
  <dcvalue element="type" qualifier="none">Artigo</dcvalue>
</dublin_core>
"""
ARTICLE_OAIRE = """<?xml version="1.0" encoding="utf-8" standalone="no"?>
<dublin_core schema="oaire">
  <dcvalue element="citation" qualifier="volume">72</dcvalue>
  <dcvalue element="citation" qualifier="issue">1</dcvalue>
  <dcvalue element="citation" qualifier="startPage">101</dcvalue>
  <dcvalue element="citation" qualifier="endPage">118</dcvalue>
</dublin_core>
"""


def dspace_article(folder: Path, *, handle: str = ARTICLE_HANDLE, doi: str = ARTICLE_DOI,
                   title: str = "Mapas &amp; persistência") -> Item:
    """A DSpace 7 article in SAF under `folder` (its Handle, its DOI as dc.identifier.uri, its
    journal as dc.relation.ispartof, where in it under oaire.citation.*), imported by
    `importsaf`. `title` is XML text."""
    import shutil

    from django.core.management import call_command

    from archive.models import AlternateIdentifier

    saf = folder / "saf" / "item_000"
    saf.mkdir(parents=True)
    (saf / "dublin_core.xml").write_text(
        ARTICLE_DUBLIN_CORE.format(handle=handle, doi=doi, title=title))
    (saf / "metadata_oaire.xml").write_text(ARTICLE_OAIRE)
    (saf / "handle").write_text(handle + "\n")
    shutil.copy(Path(__file__).resolve().parent / "data" / "dspace" / "theses" / "item_000"
                / "tese.pdf", saf / "artigo.pdf")
    (saf / "contents").write_text("artigo.pdf\tbundle:ORIGINAL\n")
    call_command("importsaf", str(saf.parent), stdout=io.StringIO())
    return AlternateIdentifier.objects.get(scheme="handle", value=handle.lower()).item


# The collections the recorded OAI-PMH answers of tests/data/dspace/oai name in their headers
# (records 42 and 43: col_123456789_2, col_123456789_3; 44 and 45 name none): slug → Handle.
OAI_COLLECTIONS = {"teses-oai": "123456789/2", "artigos-oai": "123456789/3"}


def oai_collections(*, keep_handles: bool = True) -> dict[str, Collection]:
    """The collections of tests/servers.py ScriptedOai's records, in a community of their
    own, each keeping its DSpace Handle (`keep_handles`: else none, for a map to name)."""
    unit = Community.objects.filter(slug="dspace-oai").first() or community("dspace-oai")
    return {slug: Collection.objects.filter(slug=slug).first() or collection(
        slug, unit, handle=handle if keep_handles else "")
        for slug, handle in OAI_COLLECTIONS.items()}


def profile(slug: str, *fields: str) -> SubmissionProfile:
    """A submission profile of the registry's `fields` by name, each optional and
    repeatable, in any language (a librarian's own, as the admin makes it)."""
    made = SubmissionProfile.objects.create(slug=slug, name_pt_br=slug, name_en=slug)
    registry = {f.name: f for f in MetadataField.objects.select_related("schema")}
    ProfileField.objects.bulk_create(ProfileField(profile=made, field=registry[name], position=n)
                                     for n, name in enumerate(fields))
    return made


def programme() -> dict[str, Community | Collection]:
    """A faculty, its graduate programme, and the programme's theses and articles."""
    faculty = community("engenharia")
    ppgee = community("ppgee", faculty)
    return {"faculty": faculty, "programme": ppgee,
            "theses": collection("teses-ppgee", ppgee),
            "articles": collection("artigos-ppgee", ppgee)}


# -- Review (issue 35) ------------------------------------------------------------------------

LICENCE = "Autorizo a publicação deste trabalho no repositório."


def person(username: str, *groups: str):
    """A plain account (no staff flag), in these groups (made when missing)."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username, password="x-" + username)
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    return user


ACCOUNT_PASSWORD = "Correct-horse-battery-9"


def account(email: str = "ana.silva@example.org", *, name: str = "Ana Silva",
            password: str | None = ACCOUNT_PASSWORD, verified: bool = True):
    """A person's account (archive/accounts/), through its service: signed in by `email`
    once `verified`."""
    from archive.accounts import services as accounts

    return accounts.create_account(name=name, email=email, password=password,
                                   email_verified=verified).user


def link_in(mail) -> str:
    """The path (and query) of the one link of this site in a mail's body."""
    from urllib.parse import urlsplit

    found = re.findall(r"https?://\S+", mail.body)
    assert found, mail.body
    parts = urlsplit(found[0])
    return parts.path + (f"?{parts.query}" if parts.query else "")


def reviewed(collection: Collection, kind: str = "single", publish_on=None,
             **roles: str) -> Workflow:
    """`collection` with a workflow of `kind` and its roles held by groups (role=group name,
    e.g. reviewer="Reviewers"), made when missing."""
    from django.contrib.auth.models import Group

    for role, group in roles.items():
        CollectionRole.objects.create(collection=collection, role=role,
                                      group=Group.objects.get_or_create(name=group)[0])
    return Workflow.objects.create(collection=collection, kind=kind, publish_on=publish_on)


def submission(owner, collection: Collection, title: str = TITLE, **fields) -> Submission:
    """A complete draft (title, a creator, the licence accepted) through the review's
    services."""
    from archive.review import services as review

    fields = {"metadata": [{"field": "dc.creator", "value": "Silva, Ana"}],
              "licence_text": LICENCE, "licence_accepted": True, **fields}
    return review.submission_create(user=owner, collection=collection, title=title, **fields)


def pending_upload(owner, spec: File = "paper.pdf"):
    """A complete pending upload of `owner` (as a tus upload ends), for a submission's files."""
    from archive.deposit import pending

    return pending.keep(owner=owner, file=uploaded(spec))


def pdf(text: str | None = None) -> bytes:
    """A real one-page PDF, made with pypdf: `text` written on it in Helvetica (its text
    layer), or, with None, only a grey rectangle drawn, as a scan's page has no text."""
    from pypdf import PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, StreamObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=595, height=842)
    content = StreamObject()
    if text is None:
        content.set_data(b"0.5 g 72 72 451 698 re f")
    else:
        font = DictionaryObject({
            NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica")})
        page[NameObject("/Resources")] = DictionaryObject({
            NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        content.set_data(f"BT /F1 14 Tf 72 770 Td ({text}) Tj ET".encode("latin-1"))
    page.replace_contents(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def png() -> bytes:
    """A real PNG image of one green pixel."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x00\xff\x00")) + chunk(b"IEND", b""))


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


# -- What is inside files (issue 37): documents with known text, and hostile ones ---------------

def pdf_pages(*texts: str) -> bytes:
    """A real PDF of one page per text (ASCII), each written in Helvetica: its text layer."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for text in texts:
        writer.add_page(PdfReader(io.BytesIO(pdf(text))).pages[0])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def raw_pdf(*objects: bytes, trailer: bytes = b"") -> bytes:
    """A PDF written by hand, object 1 its catalogue: for what pypdf would not write."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, trailer, xref)
    return bytes(out)


def scanned_pdf(*pages: str, width: int = 1240, height: int = 877) -> bytes:
    """A PDF of page images without a text layer, as a scanner makes: each text drawn in
    DejaVu Sans at 150 dpi (Pillow), a line every eight words."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 34)
    images = []
    for text in pages:
        image = Image.new("L", (width, height), 255)
        draw = ImageDraw.Draw(image)
        words = text.split()
        for line in range(0, len(words), 8):
            draw.text((80, 80 + line // 8 * 60), " ".join(words[line:line + 8]), font=font,
                      fill=0)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=150, save_all=True, append_images=images[1:])
    return out.getvalue()


def _zipped(members: dict[str, bytes | str]) -> bytes:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def docx(*pages: str) -> bytes:
    """A DOCX of one paragraph per page, an explicit page break between them."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    brk = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
    body = brk.join(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" for text in pages)
    return _zipped({
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.'
        'openxmlformats.org/package/2006/content-types"/>',
        "word/document.xml": f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{w}">'
        f"<w:body>{body}</w:body></w:document>"})


def odt(*pages: str) -> bytes:
    """An ODT of one paragraph per page, with the soft page breaks LibreOffice writes."""
    text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    body = "<text:soft-page-break/>".join(f"<text:p>{page}</text:p>" for page in pages)
    return _zipped({
        "mimetype": "application/vnd.oasis.opendocument.text",
        "content.xml": f'<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        f'xmlns:office="{office}" xmlns:text="{text}"><office:body><office:text>{body}'
        "</office:text></office:body></office:document-content>"})


def image_bomb(side: int = 20_000) -> bytes:
    """A PNG that says it is side × side pixels (a decompression bomb for Pillow) in a few
    hundred bytes: its header, and a little of its pixels."""
    return (b"\x89PNG\r\n\x1a\n"
            + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(b"\x00" * 100_000)) + _png_chunk(b"IEND", b""))


def hostile_files() -> dict[str, tuple[bytes, str]]:
    """The hostile corpus (issue 37): name → (bytes, words its failure's reason holds)."""
    pages = 10_000
    many = raw_pdf(b"<< /Type /Catalog /Pages 2 0 R >>",
                   b"<< /Type /Pages /Count %d /Kids [" % pages
                   + b"".join(b"%d 0 R " % (n + 3) for n in range(pages)) + b"] >>",
                   *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"] * pages)
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"
    javascript = raw_pdf(b"<< /Type /Catalog /Pages 2 0 R /Names << /JavaScript 4 0 R >> >>",
                         b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>", page,
                         b"<< /Names [(x) 5 0 R] >>",
                         b"<< /S /JavaScript /JS (app.alert(1);) >>")
    form = raw_pdf(b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>",
                   b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] /Annots [4 0 R] >>",
                   b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [0 0 50 20] "
                   b"/P 3 0 R >>")
    encrypted = _encrypted_pdf()
    bomb_xml = _zipped({"word/document.xml": b"<a>" + b" " * (210 << 20) + b"</a>"})
    return {
        "empty.pdf": (b"", "0 bytes"),
        "malformed.pdf": (b"%PDF-1.4\nnot a PDF at all\n%%EOF\n", "not a readable PDF"),
        "encrypted.pdf": (encrypted, "encrypted"),
        "ten-thousand-pages.pdf": (many, "10000 pages"),
        "javascript.pdf": (javascript, "JavaScript"),
        "form.pdf": (form, "form"),
        "bomb.png": (image_bomb(), "decompression bomb"),
        "bomb.docx": (bomb_xml, "inflates to more than"),
    }


def _encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.add_page(PdfReader(io.BytesIO(pdf("secret text"))).pages[0])
    writer.encrypt("owner-and-user-password")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def clamav_database(folder: Path, sample: bytes) -> Path:
    """A ClamAV signature database of one signature, made by ClamAV's own `sigtool` from
    the MD5 of `sample` (never downloaded): clamscan -d <it> finds files of these bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ibi-test-sample").write_bytes(sample)
    signature = subprocess.run(["sigtool", "--md5", "ibi-test-sample"], cwd=folder, check=True,
                               capture_output=True, text=True, timeout=60).stdout
    database = folder / "ibi-test.hdb"
    database.write_text(signature)
    return database


def translation(original: Item, language: str, *files: File, **fields) -> Item:
    """A translation of `original` into `language`."""
    fields.setdefault("title", f"{original.title} ({language})")
    return item(*files, language=language, translation_of=original, **fields)


def as_copy(target: Item, *, source: str = "http://archive-b.example",
            relations: dict[str, str] | None = None) -> Item:
    """`target` held here as a Copy of the Original at `source`, with the relations its
    Original's records named at the copy (Item.origin_relations)."""
    Item.objects.filter(pk=target.pk).update(state=Item.State.COPY, source_archive=source,
                                             origin_relations=relations or {})
    target.refresh_from_db()
    return target


def from_dspace(target: Item, *, handle: str = "", uuid: str = "",
                bitstreams: dict[str, str] | None = None,
                sequences: dict[str, str] | None = None) -> Item:
    """`target` as if it came from DSpace: its Handle, its item UUID, its bitstreams' UUIDs
    (uuid → file name) and sequences (n → file name) kept as alternate identifiers."""
    from archive.models import AlternateIdentifier

    scheme = AlternateIdentifier.Scheme
    rows = [(scheme.HANDLE, handle, ""), (scheme.DSPACE_ITEM, uuid, "")]
    rows += [(scheme.DSPACE_BITSTREAM, key, name) for key, name in (bitstreams or {}).items()]
    rows += [(scheme.DSPACE_SEQUENCE, f"{handle}/{n}", name)
             for n, name in (sequences or {}).items()]
    AlternateIdentifier.objects.bulk_create(
        AlternateIdentifier(item=target, scheme=s, value=v.lower(), file_name=f)
        for s, v, f in rows if v)
    return target


def held_elsewhere(source, *files: File, title: str = "Report", **fields) -> dict:
    """An item held by another Archive, the stand-in `source` (tests/fake_archive.py): made
    here, its record and bytes handed to the stand-in, then forgotten here. Its record."""
    from tests.fake_archive import forget, publish

    fields.setdefault("dc", {"creator": ["Banon, Gerald"], "subject": ["IBI", "copies"]})
    made = item(*files or (("report.pdf", b"%PDF-1.7 report"), ("data.csv", b"a,b\n1,2\n"),
                           ("empty.txt", b"")), title=title, language="pt-BR", **fields)
    record, data = publish(APIClient(), made)
    forget(made)
    return source.add(record, data)


# -- Deposits over HTTP -----------------------------------------------------------------------

def token_client(user) -> APIClient:
    """A REST client with a token of `user`."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def uploaded(spec: File = "paper.pdf") -> SimpleUploadedFile:
    """A file in a multipart form of Django's test clients."""
    name, data, declared = _file(spec)
    return SimpleUploadedFile(name, data, content_type=declared or "application/octet-stream")


def posted(api: APIClient, *files: File, title: str = TITLE, headers: dict | None = None,
           **fields):
    """POST /api/items/: a deposit through the REST API (multipart), as a client sends it;
    the response as the test client gives it."""
    return api.post(ITEMS, {"title": title, "files": [uploaded(spec) for spec in
                                                      files or ("paper.pdf",)], **fields},
                    format="multipart", secure=True, headers=headers or {})


def posted_metadata(api: APIClient, metadata: list[dict], **fields):
    """POST /api/items/ with qualified values (`metadata`, sent as JSON text in the multipart
    body, as a client that also sends files does)."""
    return posted(api, metadata=[json.dumps(metadata)], **fields)


BOUNDARY = "ibi-test-boundary"


def posted_raw(client, url: str, files: Sequence[tuple[str, bytes]],
               fields: dict[str, str] | None = None, *, field: str = "files"):
    """A multipart body written by hand, POSTed: the file names reach the server exactly as
    given (Django's test clients would strip the directories of `../../x` themselves). `field`:
    the form field of the files ("files" for the API, "upload" for the admin)."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
             f"{value}\r\n".encode() for name, value in (fields or {}).items()]
    parts += [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; '
              f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
              + data + b"\r\n" for name, data in files]
    body = b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()
    return client.generic("POST", url, body, f"multipart/form-data; boundary={BOUNDARY}",
                          secure=True)


def deposit_request(server, token: str, title: str = TITLE, *files: File,
                    **fields) -> httpx.Response:
    """A deposit on a live server (tests/servers.py) through its REST API: the response,
    whatever it is."""
    parts = [("files", (name, data, declared or "application/octet-stream"))
             for name, data, declared in map(_file, files or ("paper.pdf",))]
    return httpx.post(f"{server.url}{ITEMS}", data={"title": title, **fields}, files=parts,
                      headers={"Authorization": f"Token {token}"}, timeout=60)


def deposited(server, token: str, title: str = TITLE, *files: File, **fields) -> dict:
    """A deposit on a live server through its REST API, which must succeed: its record."""
    response = deposit_request(server, token, title, *files, **fields)
    assert response.status_code == 201, response.text
    return response.json()


def admin_deposit(client: Client, *files: File, title: str = TITLE,
                  meta: dict[str, str] | None = None, **fields):
    """The admin's add form posted by a logged-in librarian (`meta`: more of the request's
    META, e.g. HTTP_ACCEPT_LANGUAGE); the response."""
    data = {"title": title, "transferable": "on", "upload": [uploaded(spec) for spec in
                                                             files or ("paper.pdf",)],
            **fields}
    return client.post("/admin/archive/item/add/", data, secure=True, **(meta or {}))


# -- Reads and waits --------------------------------------------------------------------------

def counts(item_id: int, *, unique: bool = False) -> dict[str, int]:
    """An item's access counts as a page shows them: what this process counted, written first."""
    access_counter.flush()
    return item_counts(item_id, unique=unique)


def wait_until(condition: Callable[[], T], *, timeout: float = 30, what: str = "it"
               ) -> T:
    """The first truthy value of `condition()`, asked again until `timeout` seconds: for what
    another process does (a server, a worker), which a test cannot wait on as an event. Never
    shorter than a second: a loaded machine is slow, not wrong."""
    deadline = time.monotonic() + max(timeout, 1)
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.05)  # polling interval, not a synchronisation


SCREENSHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"


def screenshot(page, name: str) -> None:
    """The page as Playwright sees it, to artifacts/screenshots/<name>.png (kept by CI)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)


AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"


_AXE_CONTEXTS: weakref.WeakSet = weakref.WeakSet()  # browser contexts that load axe-core


def axe_everywhere(context) -> None:
    """axe-core (the npm package `make test` installs) in every page the browser context
    opens from now on: an init script, which Playwright runs in each new document before the
    page's own (a sweep of a hundred pages sent its 550 kB through Playwright and compiled
    it afresh on each, 0.15 s a page), and which no Content-Security-Policy governs."""
    if context not in _AXE_CONTEXTS:
        assert AXE.exists(), "axe-core is missing: `make test` installs it (npm ci)"
        context.add_init_script(path=str(AXE))
        _AXE_CONTEXTS.add(context)


def with_axe(page) -> None:
    """axe-core loaded into the page, once, and into every page its context opens next."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        axe_everywhere(page.context)
        page.add_script_tag(path=str(AXE))


def axe_violations(page) -> list[dict]:
    """axe-core's violations on the page as it is (rule, impact, where): [] when it finds
    none. The admin's pickers (select2), built on jQuery's ready, are waited for first."""
    page.wait_for_function("""() => [...document.querySelectorAll('select.admin-autocomplete')]
        .every(s => s.nextElementSibling?.querySelector('[data-ibi-named]'))""")
    with_axe(page)
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [{"rule": v["id"], "impact": v["impact"],
             "where": [" ".join(n["target"]) for n in v["nodes"]][:5]} for v in found]


def titles(items: Iterable[Item]) -> list[str]:
    return [found.title for found in items]


# -- A showcase collection ---------------------------------------------------------------------

SHOWCASE_PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
SHOWCASE_DESCRIPTION = (
    "Este relatório descreve a modelagem do clima regional da Amazônia com dados de satélite de "
    "2000 a 2012, as incertezas dos modelos e o que as séries temporais mostram sobre a "
    "estação seca, que ficou mais longa e mais quente em toda a bacia, com mapas e tabelas.")
SHOWCASE_REPORT = {
    "creator": [("Silva, João Carlos", "0000-0002-1825-0097"), "Souza, Maria"],
    "subject": ["clima", "Amazônia"], "date": ["2013-09-04"], "publisher": ["INPE"],
    "type": ["Relatório técnico"], "rights": ["CC-BY-4.0"],
    "identifier": ["INPE-17123-RPQ/123"], "description": [SHOWCASE_DESCRIPTION]}
SHOWCASE_TITLE = "Modelagem do clima regional da Amazônia"
# A doctoral thesis as MTD-BR describes one (issue 34): its advisor with an ORCID iD, its
# co-advisor with a Lattes CV, its committee, programme, department, degree and CNPq area.
THESIS = {
    "creator": [Qualified("Lima, Ana", authority="8765432109876543")],
    "dc.contributor.advisor": [Qualified("Pereira, João Henrique",
                                         authority="0000-0002-1694-233X")],
    "dc.contributor.advisor-co": [Qualified("Almeida, Beatriz Souza",
                                            authority="1234567890123452")],
    "dc.contributor.referee": [Qualified("Santos, Carlos Eduardo"),
                               Qualified("Rocha, Fernanda", authority="0000-0001-5109-3700")],
    "contributor": ["Costa, Revisão Técnica"],
    "publisher": ["Universidade Federal do Rio Grande do Sul"],
    "dc.publisher.program": ["Programa de Pós-Graduação em Física"],
    "dc.publisher.department": ["Instituto de Física"],
    "dc.publisher.initials": ["UFRGS"],
    "dc.subject.cnpq": ["CNPQ::CIENCIAS EXATAS E DA TERRA::FISICA"],
    "local.degree.level": ["doutorado"], "local.degree.name": ["Doutor em Física"],
    "subject": ["Supercondutividade"], "type": ["Tese"], "date": ["2024-03-15"],
    "description": ["Esta tese estuda a supercondutividade em filmes finos."],
}


def showcase() -> dict[str, Item]:
    """What the page checks and the landing page's tests read: two editions of a technical
    report (a PDF with an accent and a space in its name, data), its English translation, a
    tombstone, a doctoral thesis (THESIS) under embargo in the theses of a graduate
    programme of a faculty (`programme`), where the report is mapped too. Keys: first, item
    (the second edition), english, gone, embargoed."""
    services.ensure_archive_service()
    files = [("relatório final.pdf", SHOWCASE_PDF, "application/pdf"),
             ("dados.csv", b"a,b\n1,2\n")]
    first = item(*files, title=SHOWCASE_TITLE, language="pt-BR", dc=SHOWCASE_REPORT)
    second = item(*files, title=SHOWCASE_TITLE, language="pt-BR", dc=SHOWCASE_REPORT,
                  previous_edition=first)
    english = translation(second, "en", ("final report.pdf", SHOWCASE_PDF, "application/pdf"),
                          title="Regional climate modelling of the Amazon")
    gone = item(("x.pdf", SHOWCASE_PDF, "application/pdf"), title="Relatório retirado",
                dc=SHOWCASE_REPORT)
    services.item_delete(item=gone, reason="a pedido dos autores")
    theses = programme()["theses"]
    tree.item_map(item=second, collections=[theses])
    embargoed = item(("tese.pdf", SHOWCASE_PDF, "application/pdf"), title="Tese sob embargo",
                     language="pt-BR", dc=THESIS, collection=theses,
                     access=services.Access("embargoed",
                                            timezone.localdate() + timedelta(days=60),
                                            "patente em andamento"))
    return {"first": first, "item": second, "english": english, "gone": gone,
            "embargoed": embargoed}


KEY = "1234567890"  # the registration key of every Archive a test includes


@functools.cache
def _key_hash() -> str:
    from archive.resolver import service

    return service.hash_key(KEY)  # once: PBKDF2 is slow on purpose


def include(address: str, service_ibi: str) -> RegisteredArchive:
    """An Archive included at this resolver: registered (key KEY) at `address`, as its
    archive service `service_ibi`."""
    return RegisteredArchive.objects.create(archive_service_ibi=service_ibi, included=True,
                                            address=address, key_hash=_key_hash())


# -- Migrations, forwards and backwards (the data migrations' tests) ----------------------------

def migrate_to(targets):
    """The test database migrated to `targets` (``[("archive", "0040_…")]``, forwards or
    backwards, or the graph's leaves); the historical apps there."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


_AT_MIGRATION: dict[str, Path] = {}  # each target's database, as first reached


def at_migration(targets) -> Iterator:
    """A fixture's body: the historical apps at `targets` (`migrated_back`), then the database
    at the latest migration again for the tests that follow (also when getting there failed).
    On SQLite, a target reached once is kept and put back for the next test that asks for it,
    and the latest is put back as the session's start kept it (tests/servers.py `snapshot`,
    `restore`)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from tests.servers import restore, snapshot

    key = repr(sorted(map(tuple, targets)))
    try:
        if key in _AT_MIGRATION and restore(connection, _AT_MIGRATION[key]):
            yield MigrationExecutor(connection).loader.project_state(targets).apps
        else:
            state = migrated_back(targets)
            if (kept := snapshot(connection, "at-migration")) is not None:
                _AT_MIGRATION[key] = kept
            yield state
    finally:
        back_to_latest()


def migrated_back(targets):
    """The test database with the migrations applied that migrating it back to `targets` (one
    migration per app) leaves applied — `targets` and, of every other app, what does not
    depend on a migration after them — and the historical apps there. On SQLite it is emptied
    and migrated forwards, as an installation of that time was made: it holds only what those
    migrations wrote (no post_migrate: no archive service, content types or permissions, which
    a test makes itself if it needs them). Going back rendered the project's state once per
    migration undone (from the latest to 0005, 9.9 s of CPU where this takes 1.0); the way back
    through every migration is still taken where this is not SQLite (the PostgreSQL pass of
    .ci/run). Elsewhere it is migrated back."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from tests.servers import restore

    if not restore(connection, ":memory:"):  # a new database: empty
        return migrate_to(targets)
    graph = MigrationExecutor(connection).loader.graph
    undone = set()
    for target in map(tuple, targets):
        for child in graph.node_map[target].children:
            if child.key[0] == target[0]:
                undone.update(graph.backwards_plan(child.key))
    kept = set(graph.nodes) - undone
    MigrationExecutor(connection).migrate(
        [node for node in kept if not {child.key for child in graph.node_map[node].children}
         & kept])
    return MigrationExecutor(connection).loader.project_state(targets).apps


def back_to_latest() -> None:
    """The test database at the latest migration again, after a test migrated it back: on
    SQLite put back as the session's start kept it (tests/servers.py `restore_migrated`),
    else migrated forward."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from tests.servers import restore_migrated

    if not restore_migrated(connection):
        migrate_to(MigrationExecutor(connection).loader.graph.leaf_nodes())


def edition_series(*years: int) -> list[Item]:
    """A work ("Série", in pt-BR) in editions, oldest first, one a year: e1.pdf, e2.pdf, …,
    each created on 1 March of its year (a queryset update: no waiting)."""
    from datetime import UTC, datetime

    editions: list[Item] = []
    for n, year in enumerate(years, 1):
        edition = item((f"e{n}.pdf", b"%PDF-1.4 e"), title="Série", language="pt-BR",
                       previous_edition=editions[-1] if editions else None)
        Item.objects.filter(pk=edition.pk).update(created=datetime(year, 3, 1, tzinfo=UTC))
        editions.append(edition)
    return editions


# -- The sources the suite's own rules read (test_suite.py, test_layout.py) ---------------------

@functools.lru_cache(maxsize=1024)
def syntax_tree(source: str) -> ast.Module:
    """`ast.parse(source)`, once per text in a test process: the rules walk the same modules
    again and again (each test over every module). Read, never changed, by its callers."""
    return ast.parse(source)


@functools.lru_cache(maxsize=1024)
def syntax_nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of `syntax_tree(source)`, as `ast.walk` gives them, walked once per text in a
    test process (a walk of every module was most of a rule's CPU)."""
    return tuple(ast.walk(syntax_tree(source)))

