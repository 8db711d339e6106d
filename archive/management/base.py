"""What the repository's commands share.

The commands speak LANGUAGE_CODE: Django (since 2.1) no longer deactivates translations in
commands, so their output, their errors and the system checks come in the deployment's
language, `pt-br` for a Brazilian library, and `LANGUAGE_CODE=en manage.py …` gives one run in
English. Not the shell's LANG: a server's is rarely the library's (often C.UTF-8), and one setting
for the site's fallback and the operator's console keeps them alike. What scripts read stays as
it is in every language: `ibi mint` prints the two IBIs, `createlibrarian` ends with the token,
`switchon` prints the resolver's pairs, `importitems` writes its journal in JSON.
"""
from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError, DjangoHelpFormatter
from django.utils.translation import gettext as _

from archive.dspace import ibis, placement


class _DocstringFormatter(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass


class DocumentedCommand(BaseCommand):
    """A command whose --help shows its module docstring as written: it documents a format."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs):
        return super().create_parser(prog_name, subcommand, formatter_class=_DocstringFormatter,
                                     **kwargs)


# -- Items that come with an IBI (importsaf, harvest; archive/dspace/ibis.py) ------------------

def keeping_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--migrate", nargs="?", const="", default=None, metavar="ARCHIVE",
        help="the collection is being migrated: an item that carries an IBI not held here "
             "takes its Original over from ARCHIVE (its base URL; default: the Archive "
             "registered for the IBI, for a harvest the source's), as migrateitem does; "
             "without it such an item is kept as a Copy of its registered Archive")
    parser.add_argument("--token", default="",
                        help="with --migrate: an API token at the Archive handing over")


def check_keeping(options: dict) -> None:
    if options.get("migrate") is not None and not options.get("token"):
        raise CommandError(_("--migrate needs --token, an API token of the Archive that "
                             "hands the Originals over"))


def keeping(options: dict, fallback: str = "") -> ibis.Keeping:
    migrate = options.get("migrate")
    return ibis.Keeping(migrate=migrate is not None, source=migrate or "",
                        token=options.get("token") or "",
                        fallback=_origin(fallback) if fallback else "")


def _origin(url: str) -> str:
    """scheme://host[:port] of a harvest's base URL: the Archive it belongs to."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


# -- Where items go (importsaf, harvest; archive/dspace/placement.py) --------------------------

def placement_arguments(parser: argparse.ArgumentParser, unplaced: str) -> None:
    """--collection and --map-collections; `unplaced`: what goes into --collection."""
    parser.add_argument(
        "--collection", default="", metavar="SLUG",
        help=f"the collection of {unplaced} (default: the default collection)")
    parser.add_argument(
        "--map-collections", type=Path, metavar="FILE",
        help="CSV, one `handle,slug` a line: the collection here of each DSpace collection "
             "Handle (or the source's collection slug) the source names")


def placement_of(collection: str, map_file: Path | None,
                 keep_handles: bool = True) -> placement.Placement:
    """The collections of the run, checked before any item: a map file that cannot be read,
    or a slug no collection has, stops it (CommandError)."""
    mapping = {}
    if map_file is not None:
        try:
            text = map_file.expanduser().read_text(encoding="utf-8-sig")
        except (OSError, UnicodeError) as exc:
            raise CommandError(_("--map-collections %(path)s cannot be read: %(reason)s")
                               % {"path": map_file, "reason": exc}) from None
        try:
            mapping = placement.read_map(text)
        except placement.MapError as exc:
            raise CommandError(f"--map-collections {map_file}: {exc}") from None
    try:
        return placement.placement(collection, mapping, keep_handles=keep_handles)
    except placement.MapError as exc:
        raise CommandError(str(exc)) from None


# -- A day to act as of (liftembargoes, publishapproved) ---------------------------------------

def day_argument(parser: argparse.ArgumentParser, acting: str) -> None:
    parser.add_argument("--today", metavar="YYYY-MM-DD",
                        help=f"{acting} as of this day instead of today in TIME_ZONE")


def day_of(today: str | None) -> date | None:
    """The --today given, or None (today in TIME_ZONE); a CommandError for what is no date."""
    try:
        return date.fromisoformat(today) if today else None
    except ValueError:
        raise CommandError(_("--today %(value)r is not a date YYYY-MM-DD")
                           % {"value": today}) from None
