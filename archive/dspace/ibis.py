"""Items that come with an IBI (issue #41, 5): one item, one IBI, for ever.

An item exported or harvested from an Archive of the IBI system carries its IBI: `exportsaf`
and OAI-PMH write its persistent URL as a dc.identifier (``http://<resolver>/<IBI>``), the OAI
identifier ends with it (``oai:<address>:<IBI>``), and another package may name it bare, in
either form (repository name or IBIp). `importsaf` and `harvest` never mint a second IBI for
such an item:

* held here already (Original or Copy, under either form): the same item, skipped or updated
  as one found by its Handle is; a Copy is refreshed from its Original's Archive instead;
* minted by this Archive's own identification subsystem (its export imported into a fresh
  database): deposited again under that IBI, both forms, which is never minted again;
* `--migrate`: the Original is handed over to this Archive as RTC-11 §5.2 describes
  (preservation/migration.py `migrate_item`: copied, then given up by its Archive);
* else its Archive (the one whose identification subsystem minted it) registered here: a Copy
  of it (preservation/copies.py `copy_item`: both forms,
  the files and the provenance, from that Archive);
* else the record fails, saying why: nothing is minted.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from ..deposit import selectors
from ..deposit import services as deposit
from ..identifiers import ibi as ibilib
from ..models import Item, RegisteredArchive
from ..preservation import copies, migration
from ..protocol import persistent_url


def _named(value: str) -> ibilib.Ibi | None:
    """The IBI a dc.identifier names: a persistent URL of the item itself (no modifier, no
    file) or the bare IBI, in either form."""
    text = value.strip()
    if text.lower().startswith(("http://", "https://")):
        try:
            url = persistent_url.parse(urlsplit(text).path or "/")
        except ValueError:
            return None
        if url.modifier or url.verbs or url.filepath is not None:
            return None
        text = url.ibi
    elif not text or any(c.isspace() for c in text):
        return None
    try:
        return ibilib.parse(text)
    except ValueError:
        return None


def carried(identifiers: Iterable[str], oai_identifier: str = ""
            ) -> tuple[list[ibilib.Ibi], list[str]]:
    """(the IBIs a record carries, its other identifiers): every dc.identifier that names an
    IBI, and the OAI identifier's last part. Pure::

        >>> ibis, rest = carried(["http://urlib.net/8JMKD3MGP8W/34PGRBS", "ISBN 85-17-00001-3"],
        ...                      "oai:archive.example:sid.inpe.br/mtc-m18/2009/02.16.17.46")
        >>> [str(i) for i in ibis], rest
        (['8JMKD3MGP8W/34PGRBS', 'sid.inpe.br/mtc-m18/2009/02.16.17.46'], ['ISBN 85-17-00001-3'])
    """
    found: dict[tuple, ibilib.Ibi] = {}
    rest = []
    for value in identifiers:
        ibi = _named(value)
        if ibi is None:
            rest.append(value)
        else:
            found.setdefault(ibi.key, ibi)
    if oai_identifier.lower().startswith("oai:"):
        ibi = _named(oai_identifier.rsplit(":", 1)[1])
        if ibi is not None:
            found.setdefault(ibi.key, ibi)
    return list(found.values()), rest


def holder(ibis: list[ibilib.Ibi]) -> Item | None:
    """The item held here under any of these IBIs, or None; Conflict when two items are, or
    when one is the archive service (no package updates it: a fresh database that minted its
    IBI in the instant an exported item had been minted, say)."""
    found = {item.pk: item for ibi in ibis if (item := selectors.item_by_ibi(str(ibi)))}
    if any(item.is_archive_service for item in found.values()):
        raise deposit.Conflict(_("%(ibi)s names this Archive's archive service here, not an "
                                 "item: the record cannot come in under it") % {
            "ibi": next(i.ibi for i in found.values() if i.is_archive_service)})
    if len(found) > 1:
        raise deposit.Conflict(_("these IBIs name different items here: %(ibis)s")
                               % {"ibis": ", ".join(map(str, ibis))})
    return next(iter(found.values()), None)


@dataclass(frozen=True)
class Keeping:
    """How an item that carries an IBI not held here comes in: `migrate` (with the API token
    of its Archive, `token`) takes its Original over from `source` (else from its registered
    Archive, else from `fallback`: a harvest's own source); else it is copied."""

    migrate: bool = False
    source: str = ""
    token: str = ""
    fallback: str = ""


def _subsystem(ibi: ibilib.Ibi) -> tuple:
    """The identification subsystem that minted an IBI (RTC-10): host or IP, and port."""
    return (ibi.hostname, ibi.port) if ibi.form == "rep" else (ibi.ip, ibi.port)


def _registered_home(ibis: list[ibilib.Ibi]) -> str:
    """The base URL of the registered Archive that minted one of these IBIs: the one whose
    archive service IBI the same subsystem minted, else one whose address is the IBI's host
    (as the resolver finds an IBI's home, resolver/fanout.py `home_of`); "" when none is."""
    minted = {_subsystem(ibi) for ibi in ibis}
    hosts = {host for ibi in ibis for host in (ibi.hostname, ibi.ip) if host}
    by_host = ""
    for archive in RegisteredArchive.objects.exclude(address="").order_by("pk"):
        try:
            if _subsystem(ibilib.parse(archive.archive_service_ibi)) in minted:
                return f"http://{archive.address}"
        except ValueError:
            pass
        host = archive.address.rsplit(":", 1)[0].strip("[]").lower()
        if not by_host and (host in hosts or archive.ip in hosts):
            by_host = f"http://{archive.address}"
    return by_host


def minted_here(ibis: list[ibilib.Ibi]) -> Decimal | None:
    """The date of the carried IBI this Archive's own identification subsystem minted, if
    one is: an export of this Archive coming back into a fresh database keeps it."""
    own = {(settings.IBI_HOSTNAME.lower().removesuffix("."), settings.IBI_PORT),
           (settings.IBI_IP, settings.IBI_IP_PORT)}
    return next((ibi.date for ibi in ibis if _subsystem(ibi) in own), None)


def keep(ibis: list[ibilib.Ibi], keeping: Keeping) -> copies.CopyResult:
    """The item under the IBI it carries, as a Copy or a migrated Original (see the module's
    docstring), or a ServiceError saying why it cannot come in: never a second IBI."""
    ibi = str(ibis[0])
    if keeping.migrate:
        source = keeping.source or _registered_home(ibis) or keeping.fallback
        if not source:
            raise deposit.ServiceError(_("%(ibi)s: name the Archive the collection is migrated "
                                         "from, --migrate <its base URL>") % {"ibi": ibi})
        return migration.migrate_item(ibi=ibi, source=source, token=keeping.token)
    home = _registered_home(ibis)
    if home:
        return copies.copy_item(ibi=ibi, source=home)
    raise deposit.ServiceError(_(
        "the record carries the IBI %(ibi)s, minted by an Archive not registered at this "
        "resolver: register that Archive to keep the item as a Copy of its Original, or take "
        "the Original over with --migrate; no second IBI is minted") % {"ibi": ibi})


def refresh(copy: Item) -> bool:
    """A Copy found again: copied again from its Original's Archive. Whether it changed."""
    return copies.copy_item(ibi=copy.ibi, source=copy.source_archive).outcome != "unchanged"
