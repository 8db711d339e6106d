"""What runs inside the sandbox (sandbox.py), one job a process, no Django: the limits are set
first (`limit`), before anything of the file is read, and every tool it starts inherits them.

    python -m archive.fulltext.worker text      <file> <kind>          → {"pages", "blank"}
    python -m archive.fulltext.worker ocr       <file> <kind> <page>   → {"text", "words", …}
    python -m archive.fulltext.worker thumbnail <file> <kind> <out>    → {"width", "height"}

The answer is one JSON object on stdout; {"error": reason} for a file refused (malformed,
encrypted, too many pages, JavaScript or forms, a decompression bomb …). A PDF's text comes
from poppler's pdftotext, all pages in one run (form feeds between them: a run per page, as
`-f N -l N`, costs a process start each, 30 ms a page); OCR is Tesseract's, in Portuguese and
English, of pdftoppm's rendering at 300 dpi (less for a page so large that it would pass
MAX_PIXELS).
"""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import warnings
import zipfile
from html.parser import HTMLParser
from pathlib import Path

from . import text

MEMORY = 1024 ** 3  # address space, bytes
CPU_SECONDS = 300
MAX_FILE_BYTES = 1024 ** 3  # what a tool may write
MAX_PAGES = 2000  # a PDF's: past this it is refused, not read
MAX_PIXELS = 40_000_000  # an image's, or a page rendered for OCR
MAX_UNZIPPED = 200 * 1024 * 1024  # a DOCX's or an ODT's XML, inflated
OCR_DPI = 300
THUMBNAIL_SIZE = 400  # pixels, the longer side
LANGUAGES = "por+eng"


class Refused(Exception):
    """The file cannot be read; its message says why (English, stored as the reason)."""


def limit() -> None:
    """The sandbox's limits, on this process and every tool it starts."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def tool(*args: str, binary: bool = False) -> str | bytes:
    """A tool's output; Refused with its first line of errors when it fails."""
    done = subprocess.run(args, capture_output=True, check=False)
    if done.returncode != 0:
        first = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Refused(f"{Path(args[0]).name}: {first[0] if first else 'failed'}"[:500])
    return done.stdout if binary else done.stdout.decode("utf-8", "replace")


# -- PDF ------------------------------------------------------------------------------------

def pdf_info(path: str, page: int | None = None) -> dict[str, str]:
    args = ["pdfinfo", *(["-f", str(page), "-l", str(page)] if page else []), path]
    try:
        out = tool(*args)
    except Refused as exc:
        if "password" in str(exc).lower():
            raise Refused("encrypted PDF") from None
        raise Refused(f"not a readable PDF ({exc})") from None
    return {k.strip(): v.strip() for k, _s, v in (line.partition(":") for line in out.splitlines())}


def checked_pdf(path: str) -> int:
    """A PDF's page count, once it is known to be one we read: not encrypted, not past
    MAX_PAGES, no JavaScript and no form (what a reader's viewer would run or fill in)."""
    info = pdf_info(path)
    if info.get("Encrypted", "no").startswith("yes"):
        raise Refused("encrypted PDF")
    pages = int(info.get("Pages", "0") or 0)
    if pages < 1:
        raise Refused("a PDF without pages")
    if pages > MAX_PAGES:
        raise Refused(f"{pages} pages: more than {MAX_PAGES}")
    if info.get("JavaScript", "no") == "yes":
        raise Refused("PDF with JavaScript")
    if info.get("Form", "none") not in ("none", ""):
        raise Refused("PDF with a form")
    return pages


def pdf_text(path: str) -> dict:
    pages = checked_pdf(path)
    out = tool("pdftotext", "-layout", "-enc", "UTF-8", path, "-")
    texts = [text.clean(p) for p in out.split("\f")][:pages]
    texts += [""] * (pages - len(texts))
    return {"method": "text layer", "pages": texts,
            "blank": [n for n, t in enumerate(texts, 1) if not text.has_text(t)]}


def render(path: str, page: int, out: str, *, dpi: int | None = None,
           scale_to: int | None = None, gray: bool = False) -> str:
    """One page as PNG (pdftoppm), at `dpi` bounded so that it stays under MAX_PIXELS, or
    scaled to `scale_to` pixels on its longer side."""
    args = ["pdftoppm", "-f", str(page), "-l", str(page), "-png", "-singlefile"]
    if gray:
        args.append("-gray")
    if scale_to:
        args += ["-scale-to", str(scale_to)]
    else:
        size = re.search(r"([\d.]+) x ([\d.]+) pts", pdf_info(path, page).get(
            f"Page {page:4d} size", "") or pdf_info(path).get("Page size", ""))
        width, height = (float(size.group(1)), float(size.group(2))) if size else (612, 792)
        fits = (MAX_PIXELS / max(width / 72 * height / 72, 1e-6)) ** 0.5
        args += ["-r", str(max(1, min(dpi or OCR_DPI, int(fits))))]
    tool(*args, path, out)
    return out + ".png"


# -- DOCX, ODT, HTML, plain text -------------------------------------------------------------

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
TEXT_NS = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
BREAK = "\f"


def zipped_xml(path: str, member: str):
    """A member of a DOCX or ODT, parsed without entities or DTDs (defusedxml), after the
    archive's sizes say it inflates to less than MAX_UNZIPPED."""
    from defusedxml import ElementTree

    try:
        with zipfile.ZipFile(path) as archive:
            if sum(i.file_size for i in archive.infolist()) > MAX_UNZIPPED:
                raise Refused(f"inflates to more than {MAX_UNZIPPED // 1024 ** 2} MB")
            with archive.open(member) as xml:
                return ElementTree.fromstring(xml.read(MAX_UNZIPPED + 1))
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise Refused(f"not a readable document ({exc})"[:500]) from None
    except ElementTree.ParseError as exc:
        raise Refused(f"malformed XML in {member} ({exc})"[:500]) from None
    except Exception as exc:  # defusedxml's refusals of entities and DTDs
        if type(exc).__module__.startswith("defusedxml"):
            raise Refused(f"{member}: {type(exc).__name__}") from None
        raise


def docx_text(path: str) -> dict:
    """A DOCX has no pages of its own (a word processor lays them out): its author's explicit
    page breaks (and those Word noted when it last laid the text out) cut it, then
    `text.paginate` cuts what runs longer than a page's PAGE_CHARS."""
    root = zipped_xml(path, "word/document.xml")
    parts: list[str] = []
    for paragraph in root.iter(f"{W}p"):
        for node in paragraph.iter():
            if node.tag == f"{W}t" and node.text:
                parts.append(node.text)
            elif node.tag == f"{W}tab":
                parts.append("\t")
            elif node.tag == f"{W}br" and node.get(f"{W}type") == "page" or \
                    node.tag == f"{W}lastRenderedPageBreak":
                parts.append(BREAK)
        parts.append("\n")
    return {"method": "docx", "pages": paged("".join(parts)), "blank": []}


def odt_text(path: str) -> dict:
    """An ODT's pages: where LibreOffice noted a page ended (text:soft-page-break) when it
    last laid the text out; longer stretches cut as a DOCX's."""
    root = zipped_xml(path, "content.xml")
    parts: list[str] = []

    def walk(node) -> None:
        if node.tag == f"{TEXT_NS}soft-page-break":
            parts.append(BREAK)
        elif node.tag in (f"{TEXT_NS}tab",):
            parts.append("\t")
        elif node.tag in (f"{TEXT_NS}s",):
            parts.append(" ")
        if node.text and node.tag not in (f"{TEXT_NS}soft-page-break",):
            parts.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                parts.append(child.tail)
        if node.tag in (f"{TEXT_NS}p", f"{TEXT_NS}h"):
            parts.append("\n")

    walk(root)
    return {"method": "odt", "pages": paged("".join(parts)), "blank": []}


def paged(whole: str) -> list[str]:
    """Pages cut at BREAK, each cut again into PAGE_CHARS pieces when longer."""
    return [page for part in whole.split(BREAK) for page in text.paginate(part)]


class _Visible(HTMLParser):
    SKIPPED = {"script", "style", "head", "template", "noscript"}
    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section",
              "article", "pre", "blockquote", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs) -> None:
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag) -> None:
        if tag in self.SKIPPED and self.skipping:
            self.skipping -= 1

    def handle_data(self, data) -> None:
        if not self.skipping:
            self.parts.append(data)


def declared_charset(data: bytes) -> str:
    found = re.search(rb"<meta[^>]+charset=[\"']?([A-Za-z0-9_.:-]{1,40})", data[:4096], re.I)
    return found.group(1).decode("ascii") if found else ""


def html_text(path: str) -> dict:
    data = Path(path).read_bytes()
    parser = _Visible()
    parser.feed(text.decode(data, declared_charset(data)))
    parser.close()
    whole = re.sub(r"[ \t\r]+", " ", "".join(parser.parts))
    return {"method": "html", "pages": text.paginate(re.sub(r"\n\s*\n+", "\n\n", whole)),
            "blank": []}


def plain_text(path: str) -> dict:
    return {"method": "plain text", "pages": text.paginate(text.decode(Path(path).read_bytes())),
            "blank": []}


# -- Images ---------------------------------------------------------------------------------

def opened_image(path: str):
    """An image, opened after its header says it has at most MAX_PIXELS pixels: Pillow's
    decompression-bomb check, made an error at our bound."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS // 2  # Pillow refuses at twice its bound
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    try:
        image = Image.open(path)
        if image.width * image.height > MAX_PIXELS:
            raise Refused(f"an image of {image.width} × {image.height} pixels: more than "
                          f"{MAX_PIXELS} (a decompression bomb?)")
        return image
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise Refused(f"decompression bomb ({exc})"[:500]) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise Refused(f"not a readable image ({exc})"[:500]) from None


# -- Jobs -----------------------------------------------------------------------------------

def text_job(path: str, kind: str) -> dict:
    if os.path.getsize(path) == 0:
        raise Refused("empty file (0 bytes)")
    if kind == text.IMAGE:
        opened_image(path).close()
        return {"method": "ocr", "pages": [""], "blank": [1]}
    read = {text.PDF: pdf_text, text.DOCX: docx_text, text.ODT: odt_text,
            text.HTML: html_text, text.PLAIN: plain_text}[kind]
    return read(path)


def ocr_job(path: str, kind: str, page: int) -> dict:
    """One page's words and their confidences, by Tesseract."""
    work = os.path.dirname(path)
    if kind == text.PDF:
        image = render(path, page, os.path.join(work, "page"), gray=True)
    else:
        image = os.path.join(work, "page.png")
        with opened_image(path) as opened:
            opened.seek(0)
            opened.convert("L").save(image)
    tsv = tool("tesseract", image, "stdout", "-l", LANGUAGES, "tsv")
    words, confidences, lines = [], [], {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or not cells[11].strip() or float(cells[10]) < 0:
            continue
        words.append(cells[11].strip())
        confidences.append(float(cells[10]))
        lines.setdefault(tuple(cells[1:5]), []).append(cells[11].strip())
    return {"text": text.clean("\n".join(" ".join(w) for w in lines.values())),
            "words": words, "confidences": confidences}


def thumbnail_job(path: str, kind: str, out: str) -> dict:
    if os.path.getsize(path) == 0:
        raise Refused("empty file (0 bytes)")
    if kind == text.PDF:
        checked_pdf(path)
        source = render(path, 1, os.path.join(os.path.dirname(out), "first"),
                        scale_to=THUMBNAIL_SIZE)
    else:
        source = path
    from PIL import ImageOps

    with opened_image(source) as image:
        image.draft("RGB", (THUMBNAIL_SIZE, THUMBNAIL_SIZE))  # JPEG: decoded small
        small = ImageOps.exif_transpose(image.convert("RGB"))
        small.thumbnail((THUMBNAIL_SIZE, THUMBNAIL_SIZE))
        small.save(out, "WEBP", quality=80)
        return {"width": small.width, "height": small.height}


def main(argv: list[str]) -> int:
    limit()
    job, path, kind, *rest = argv
    try:
        if job == "text":
            answer = text_job(path, kind)
        elif job == "ocr":
            answer = ocr_job(path, kind, int(rest[0]))
        else:
            answer = thumbnail_job(path, kind, rest[0])
    except Refused as exc:
        answer = {"error": str(exc)}
    except MemoryError:
        answer = {"error": f"needed more than {MEMORY // 1024 ** 2} MB of memory"}
    except RecursionError:
        answer = {"error": "nested too deeply"}
    except Exception as exc:  # a hostile file finds a tool's or a library's unforeseen edge
        answer = {"error": f"{type(exc).__name__}: {exc}"[:500]}
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
