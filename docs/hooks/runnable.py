"""MkDocs hook (mkdocs.yml `hooks:`): a block marked ```` ```sh runnable ```` (or ```` ```console
runnable ````, ```` … runnable served ````) is a command tests/test_readme.py runs as written;
Markdown knows no such marker, so the page shows it as the block's title instead."""
from __future__ import annotations

import re

MARKER = re.compile(r"^```(sh|console) runnable( served)?$", re.MULTILINE)


def titled(markdown: str) -> str:
    """```sh runnable → ```sh title="…": the same block, its test said above it."""
    def title(match: re.Match) -> str:
        served = " with a server up" if match[2] else ""
        return f'```{match[1]} title="Run as written by tests/test_readme.py{served}"'
    return MARKER.sub(title, markdown)


def on_page_markdown(markdown, page, config, files):
    return titled(markdown)
