"""What is inside the files (issue 37): extraction of a 300-page text PDF, OCR throughput,
thumbnail time — each through the sandbox as a worker runs it (a subprocess with its limits,
no network, a copy of the file in its own temporary directory).

    .venv/bin/python bench/fulltext_extract.py [--pages 300] [--ocr-pages 4] [--thumbnails 30]

Targets: the 300-page PDF's text in ≤ 10 s; thumbnail p95 ≤ 2 s a file; OCR in pages/minute,
documented. Numbers: bench/README.md.
"""
from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from archive.fulltext import sandbox, text  # noqa: E402

WORDS = ("análise dados sistema pesquisa universidade estudo modelo resultado bacia água "
         "educação pública região semiárido método processo tese capítulo figura tabela "
         "the of and research data model").split()
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def text_pdf(pages: int, lines: int = 45) -> bytes:
    """A PDF of `pages` pages of `lines` lines of words each (≈ 3 000 characters a page)."""
    from pypdf import PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, StreamObject

    rng = random.Random(37)
    writer = PdfWriter()
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                             NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    for _n in range(pages):
        page = writer.add_blank_page(width=595, height=842)
        page[NameObject("/Resources")] = DictionaryObject({
            NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        body = ["BT /F1 10 Tf 12 TL 50 800 Td"]
        for _line in range(lines):
            words = " ".join(rng.choice(WORDS) for _w in range(10))
            body.append(f"({words.encode('ascii', 'replace').decode()}) '")
        body.append("ET")
        content = StreamObject()
        content.set_data("\n".join(body).encode("latin-1"))
        page.replace_contents(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def scanned_pdf(pages: int) -> bytes:
    """A PDF of A4 page images at 200 dpi, 30 lines of Portuguese words each, no text layer."""
    from PIL import Image, ImageDraw, ImageFont

    rng = random.Random(37)
    font = ImageFont.truetype(FONT, 30)
    images = []
    for _n in range(pages):
        image = Image.new("L", (1654, 2339), 255)
        draw = ImageDraw.Draw(image)
        for line in range(30):
            draw.text((120, 150 + line * 62), " ".join(rng.choice(WORDS) for _w in range(9)),
                      font=font, fill=0)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=200, save_all=True, append_images=images[1:])
    return out.getvalue()


def photo(width: int = 4000, height: int = 3000) -> bytes:
    from PIL import Image

    image = Image.effect_noise((width, height), 64).convert("RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def timed(data: bytes, job: str, kind: str, *args: str) -> tuple[float, sandbox.Answer]:
    with sandbox.workspace(io.BytesIO(data)) as work:
        extra = [str(Path(work) / a) if a.endswith(".webp") else a for a in args]
        started = time.perf_counter()
        answer = sandbox.run(work, job, kind, *extra, timeout=600)
        return time.perf_counter() - started, answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--ocr-pages", type=int, default=4)
    parser.add_argument("--thumbnails", type=int, default=30)
    options = parser.parse_args()
    print(f"network namespace: {sandbox.unshare() or 'none'}")

    document = text_pdf(options.pages)
    runs = []
    for _n in range(3):
        seconds, answer = timed(document, "text", text.PDF)
        assert not answer.error, answer.error
        runs.append(seconds)
    chars = sum(len(p) for p in answer.data["pages"])
    print(f"text PDF: {options.pages} pages, {len(document) / 1e6:.1f} MB, {chars:,} characters;"
          f" median {statistics.median(runs):.2f} s of 3 ({', '.join(f'{r:.2f}' for r in runs)})")

    scan = scanned_pdf(options.ocr_pages)
    started = time.perf_counter()
    for number in range(1, options.ocr_pages + 1):
        _s, answer = timed(scan, "ocr", text.PDF, str(number))
        assert not answer.error and answer.data["words"], answer.error
    minutes = (time.perf_counter() - started) / 60
    print(f"OCR: {options.ocr_pages} A4 pages at 300 dpi, por+eng, one thread: "
          f"{options.ocr_pages / minutes:.1f} pages/minute ({minutes * 60 / options.ocr_pages:.1f}"
          " s a page)")

    files = [(text_pdf(1 + n % 20), text.PDF) for n in range(options.thumbnails * 2 // 3)]
    files += [(photo(), text.IMAGE) for _n in range(options.thumbnails - len(files))]
    times = []
    for data, kind in files:
        seconds, answer = timed(data, "thumbnail", kind, "thumbnail.webp")
        assert not answer.error, answer.error
        times.append(seconds)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * len(times))) - 1)]
    print(f"thumbnails: {len(times)} files ({len(times) - sum(k == text.IMAGE for _d, k in files)}"
          f" PDFs, {sum(k == text.IMAGE for _d, k in files)} 4000×3000 JPEGs): median "
          f"{statistics.median(times):.2f} s, p95 {p95:.2f} s, max {times[-1]:.2f} s")


if __name__ == "__main__":
    main()
