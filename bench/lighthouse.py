"""Lighthouse's SEO and accessibility scores of every public page (issue #27: SEO ≥ 95).

    .venv/bin/python bench/lighthouse.py [--categories seo,accessibility]

A throw-away server in production mode (gunicorn, DEBUG off, its static files collected) holds
the showcase collection the page checks read (tests/factories.py `showcase`: two editions of
a report, its translation, a tombstone, a thesis under embargo); Lighthouse (the npm package,
installed into a folder of the bench's own by npm on first use, pinned below) runs Debian's
Chromium headless against each page of tests/test_page_checks.py `public_pages`, in
Portuguese, and the scores are printed as a Markdown table for bench/README.md. Not in the
suite: a Lighthouse run costs seconds a page; the Nu HTML checker and axe-core are the
suite's (tests/test_page_checks.py).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LIGHTHOUSE = "lighthouse@13.5.0"
TOOLS = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ibirepo-lighthouse"
CHROMIUM_FLAGS = ("--headless=new --no-sandbox --disable-gpu --no-first-run "
                  "--disable-background-networking --disable-component-update --disable-sync "
                  "--lang=pt-BR")
SHOWCASE = """
import json
from tests import factories as make
from tests.test_page_checks import public_pages
site = make.showcase()
print(json.dumps(public_pages(site)))
"""


def lighthouse() -> Path:
    """Lighthouse's command, installed once into TOOLS by npm (the machine's Node.js)."""
    command = TOOLS / "node_modules" / ".bin" / "lighthouse"
    if not command.exists():
        TOOLS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(TOOLS), "--no-audit", "--no-fund",
                        "--loglevel=error", LIGHTHOUSE], check=True)
    return command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--categories", default="seo,accessibility")
    args = parser.parse_args()
    from tests.servers import LiveServers

    command = lighthouse()
    with tempfile.TemporaryDirectory() as tmp, LiveServers(Path(tmp)) as servers:
        static = Path(tmp) / "static"
        server = servers.prepare("site", STATIC_ROOT=str(static), ARCHIVE_ADDRESS="127.0.0.1")
        server.manage("collectstatic", "--no-input", "-v", "0")
        pages = json.loads(server.shell(SHOWCASE).splitlines()[-1])
        server.start()
        rows = []
        for name, path in pages.items():
            out = Path(tmp) / "report.json"
            subprocess.run([str(command), server.url + path, "--quiet", "--output=json",
                            f"--output-path={out}", f"--only-categories={args.categories}",
                            "--chrome-path=/usr/bin/chromium",
                            f"--chrome-flags={CHROMIUM_FLAGS}", "--locale=pt-BR"],
                           check=False, env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"},
                           capture_output=True, timeout=300)
            report = json.loads(out.read_text())
            if report.get("runtimeError"):  # an error page (4xx, 410): Lighthouse audits none
                rows.append((name, path, {}, [f"not audited: {report['runtimeError']['code']}"]))
                continue
            scores = {key: round(100 * (value["score"] or 0))
                      for key, value in report["categories"].items()}
            failed = [audit["id"] for audit in report["audits"].values()
                      if audit.get("score") == 0 and audit.get("scoreDisplayMode") == "binary"]
            rows.append((name, path, scores, failed))
    categories = args.categories.split(",")
    print(f"bench/lighthouse.py on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, "
          f"{LIGHTHOUSE}, Debian's Chromium, pt-BR\n")
    print("| page | " + " | ".join(categories) + " | audits failed |")
    print("|---|" + "---|" * len(categories) + "---|")
    for name, _path, scores, failed in rows:
        print(f"| {name} | " + " | ".join(str(scores.get(c, "—")) for c in categories)
              + f" | {', '.join(failed) or '—'} |")


if __name__ == "__main__":
    main()
