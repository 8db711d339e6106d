"""Where an imported item goes: the collections its SAF `collections` file names.

DSpace's ItemExport writes, in each item's folder, a `collections` file: the Handles of the
collections that hold it, one a line, the owning collection first, then those it is mapped
into (ItemImport reads it the same way, and uses its `-c` collections only for an item
without one). Here a Handle names a collection of ours:

1. by the map file of `importsaf --map-collections FILE`: a CSV of two columns, the DSpace
   Handle and the slug of our collection (an optional header `handle,slug`; blank lines and
   lines starting with `#` ignored), e.g.::

       handle,slug
       123456789/1000,teses-engenharia-civil
       123456789/1001,dissertacoes-computacao

   A collection a map names keeps the Handle (Collection.handle), so that `exportsaf` writes
   it back, and later imports find it without the map;
2. else by the Handle a collection here already keeps (Collection.handle);
3. a line that is no Handle is a collection's slug: what `exportsaf` writes for a collection
   that has no Handle.

A Handle found neither way fails the item, naming it. An item without a `collections` file
goes into `importsaf --collection <slug>`, else the default collection (an item imported
before stays where it is). The first column of the map may also be a slug of the source's
(what `exportsaf` and our OAI-PMH write for a collection without a Handle): its collection
here.

`harvest` places a record the same way by its header's setSpecs (`collection_sets`): each
`col_` set names a collection, the first the owning one. DSpace writes a collection's Handle
with `_` for `/` (`col_123456789_42`); another Archive of this software its slug
(`col_teses`, archive/harvest/sets.py). A set that reads as a Handle is looked up as one
first, then as a slug; the other sets (`com_`, `type:` …) place nothing.

    >>> read_map("handle,slug\\n# teses\\nhdl:123456789/1000 , teses\\nteses-a,teses\\n")
    {'123456789/1000': 'teses', 'teses-a': 'teses'}
    >>> read_collections("123456789/1000\\n\\n123456789/1001\\n")
    ['123456789/1000', '123456789/1001']
    >>> collection_sets(["com_123456789_1", "col_123456789_42", "col_teses", "type:text"])
    [('123456789/42', '123456789_42'), ('teses',)]
    >>> collection_sets(["col_20.500.12345_7"])  # a registered prefix
    [('20.500.12345/7', '20.500.12345_7')]
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from ..communities import selectors as tree
from ..communities import services as communities
from ..models import DEFAULT_COLLECTION, Collection
from ..refusals import Refusal
from . import handles, saf


class MapError(ValueError):
    """A map file that cannot be used; the message names its line."""


class Unplaced(saf.SafError):
    """A collection named that no collection here answers to; fails its item or record."""


SLUG = re.compile(r"[-a-zA-Z0-9_]+")  # Django's validate_slug
_SET_HANDLE = re.compile(r"([0-9]+(?:\.[0-9]+)*)_(.+)")  # col_<prefix>_<suffix>
COLLECTION_SET = "col_"


def _handle(text: str) -> str:
    return handles.handle_of(text) or text.strip()  # a slug, as exportsaf writes one


def read_map(text: str) -> dict[str, str]:
    """DSpace Handle (or the source's slug) → our collection's slug, from the map file's
    text (pure)."""
    found: dict[str, str] = {}
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if number == 1 and [c.lower() for c in cells] == ["handle", "slug"]:
            continue
        if len(cells) != 2 or not all(cells):
            raise MapError(_("line %(line)d: two columns expected, a DSpace Handle and a "
                             "collection's slug") % {"line": number})
        handle = handles.handle_of(cells[0]) or (cells[0] if SLUG.fullmatch(cells[0]) else None)
        if handle is None:
            raise MapError(_("line %(line)d: %(value)r is neither a Handle nor a collection's "
                             "slug") % {"line": number, "value": cells[0]})
        if found.get(handle, cells[1]) != cells[1]:
            raise MapError(_("line %(line)d: %(handle)s is mapped twice") % {
                "line": number, "handle": handle})
        found[handle] = cells[1]
    return found


def read_collections(text: str) -> list[str]:
    """The Handles of a `collections` file, in order (the owning collection first)."""
    return [_handle(line) for line in text.splitlines() if line.strip()]


def collection_sets(specs: Iterable[str]) -> list[tuple[str, ...]]:
    """What each `col_` setSpec of a record names, in order (pure): the Handle it reads as,
    if any, then its value as a slug (see the module's docstring)."""
    found = []
    for spec in specs:
        if not spec.startswith(COLLECTION_SET) or len(spec) == len(COLLECTION_SET):
            continue
        value = spec[len(COLLECTION_SET):]
        handle = _SET_HANDLE.fullmatch(value)
        found.append((f"{handle.group(1)}/{handle.group(2)}".lower(), value) if handle
                     else (value,))
    return found


@dataclass
class Placement:
    """How the Handles of `collections` files become our collections, for one import."""

    default: Collection | None = None  # --collection; None: the default collection
    by_handle: dict[str, Collection] = field(default_factory=dict)

    @staticmethod
    def _by_slug(slug: str) -> Collection | None:
        if slug == DEFAULT_COLLECTION:  # made on first use (communities/services.py)
            return communities.default_collection()
        return tree.collection_by_slug(slug)

    def _named(self, name: str) -> Collection | None:
        collection = self.by_handle.get(name)
        if collection is None:
            collection = (Collection.objects.filter(handle=name).first()
                          if handles.handle_of(name) else self._by_slug(name))
            if collection is not None:
                self.by_handle[name] = collection
        return collection

    def place(self, names: Sequence[str | tuple[str, ...]]
              ) -> tuple[Collection, list[Collection]] | None:
        """(owning collection, mapped ones) of an item whose `collections` file names these
        Handles (or a record whose `collection_sets` are these: each the names one collection
        answers to, the first found wins); Unplaced naming the first one no collection here
        answers to. None for an item without any: a new item goes into `default`, one here
        stays where it is."""
        if not names:
            return None
        found = []
        for name in dict.fromkeys(names):
            alternatives = (name,) if isinstance(name, str) else name
            collection = next(filter(None, map(self._named, alternatives)), None)
            if collection is None:
                raise Unplaced(_("the collection %(handle)s is not a collection here: map it "
                                 "to one (--map-collections)") % {
                    "handle": alternatives[0]}, saf.COLLECTIONS)
            found.append(collection)
        owner, *mapped = found
        return owner, [c for c in dict.fromkeys(mapped) if c.pk != owner.pk]


def placement(default_slug: str = "", mapping: dict[str, str] | None = None,
              keep_handles: bool = True) -> Placement:
    """The Placement of an import or a harvest; MapError when a slug names no collection
    here, or a Handle is another collection's. `keep_handles`: the collections the map names
    by a Handle keep it (not on a dry run)."""
    default = None
    if default_slug:
        default = tree.collection_by_slug(default_slug)
        if default is None:
            raise MapError(_("--collection: no collection here has the slug %(slug)r")
                           % {"slug": default_slug})
    mapping = mapping or {}
    found = tree.collections_by_slug(mapping.values())
    by_handle = {}
    for handle, slug in mapping.items():
        if slug not in found:
            raise MapError(_("%(handle)s: no collection here has the slug %(slug)r")
                           % {"handle": handle, "slug": slug})
        by_handle[handle] = found[slug]
    if keep_handles:
        try:
            communities.collection_handles_keep(
                {h: c for h, c in by_handle.items() if handles.handle_of(h)})
        except Refusal as exc:
            raise MapError(str(exc)) from None
    return Placement(default=default, by_handle=by_handle)
