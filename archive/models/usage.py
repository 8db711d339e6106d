"""Accesses counted (COUNTER R5.1): investigations, downloads and acknowledgments per item and
day; the months rolled up for the COUNTER reports (archive/usage/rollup.py); the COUNTER API's
customers and their keys."""
from __future__ import annotations

from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from .collections import Collection
from .items import Item


class AccessKind(models.TextChoices):
    """What an access is: a download here, or an acknowledgment (a persistent URL resolved to
    this Archive, by our own resolver or another's): COUNTER's requests; or an investigation
    (the landing page, the metadata page, a metadata or citation export)."""

    DOWNLOAD = "download", _("download")
    ACKNOWLEDGMENT = "acknowledgment", _("acknowledgment")
    INVESTIGATION = "investigation", _("investigation")


# COUNTER's requests; every access is also an investigation (R5.1 §3.3.2).
REQUEST_KINDS = (AccessKind.DOWNLOAD, AccessKind.ACKNOWLEDGMENT)


class AccessType(models.TextChoices):
    """COUNTER R5.1's Access_Type of an access, as the item and file were at its time:
    Open (open to all) or Controlled (anything else: embargoed, restricted, metadata only)."""

    OPEN = "open", _("open")
    CONTROLLED = "controlled", _("controlled")


class DailyAccessCount(models.Model):
    """Accesses to an item on one UTC day, of one kind and Access_Type: n accesses, unique_n
    the first of their kind in a reader session (per client address, User-Agent and UTC hour,
    as COUNTER defines a session without a session cookie); unique_investigations the first
    access of any kind to the item (of this Access_Type) in the session, unique_requests the
    first request (download or acknowledgment): what COUNTER R5.1's Unique_Item_Investigations
    and Unique_Item_Requests sum.

    One row per item, day and kind, incremented by each batch of accesses written
    (archive/usage/counter.py), so a year of statistics is at most 730 rows per item,
    whatever the traffic. What is counted, and what is filtered, is said there; no reader's
    address is kept here.
    """

    # The unique (item, day, kind) index serves lookups by item: no index of its own.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="access_counts",
                             db_index=False, verbose_name=_("item"))
    day = models.DateField(_("day"))
    kind = models.CharField(_("kind"), max_length=16, choices=AccessKind.choices)
    access_type = models.CharField(_("access type"), max_length=10, choices=AccessType.choices,
                                   default=AccessType.OPEN, db_default=AccessType.OPEN)
    n = models.PositiveBigIntegerField(_("accesses"), default=0, db_default=0)
    unique_n = models.PositiveBigIntegerField(_("unique accesses"), default=0, db_default=0)
    unique_investigations = models.PositiveBigIntegerField(
        _("unique investigations"), default=0, db_default=0)
    unique_requests = models.PositiveBigIntegerField(_("unique requests"), default=0,
                                                     db_default=0)

    class Meta:
        verbose_name = _("daily access count")
        verbose_name_plural = _("daily access counts")
        constraints = [models.UniqueConstraint(fields=["item", "day", "kind", "access_type"],
                                               name="daily_access_count_once")]
        # The monthly roll-up reads one month of every item: a range of days.
        indexes = [models.Index(fields=["day"], name="daily_access_count_day")]

    def __str__(self) -> str:
        return f"{self.item_id} {self.day} {self.kind}: {self.n}"


class DailyFileCount(models.Model):
    """Downloads of one file of an item on one UTC day and Access_Type, after COUNTER's
    filters (robots, double clicks): the file as a component of its item (COUNTER R5.1's
    Item Report with Include_Component_Details), its Total_Item_Requests and, a request being
    an investigation too, its Total_Item_Investigations. Added to with the daily counts
    (archive/usage/counter.py); no reader is kept."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+",
                             db_index=False, verbose_name=_("item"))
    name = models.CharField(_("file"), max_length=255)
    day = models.DateField(_("day"))
    access_type = models.CharField(_("access type"), max_length=10, choices=AccessType.choices)
    n = models.PositiveBigIntegerField(_("downloads"), default=0, db_default=0)

    class Meta:
        verbose_name = _("daily file count")
        verbose_name_plural = _("daily file counts")
        constraints = [models.UniqueConstraint(fields=["item", "name", "day", "access_type"],
                                               name="daily_file_count_once")]
        indexes = [models.Index(fields=["day"], name="daily_file_count_day")]

    def __str__(self) -> str:
        return f"{self.item_id} {self.name} {self.day}: {self.n}"


class AcknowledgedUrlkey(models.Model):
    """A urlkey an acknowledgment was counted for, kept while the key could still be sent
    (IBI_URLKEY_MAX_AGE; an older key is refused anyway): a second acknowledgment of the same
    answer counts nothing. Swept by archive/usage/counter.py as acknowledgments arrive."""

    urlkey = models.CharField(_("urlkey"), max_length=64, primary_key=True)
    at = models.DateTimeField(_("counted at"), db_index=True, db_default=Now())

    class Meta:
        verbose_name = _("acknowledged urlkey")
        verbose_name_plural = _("acknowledged urlkeys")

    def __str__(self) -> str:
        return self.urlkey


class UsageMonth(models.Model):
    """A month rolled up (archive/usage/rollup.py): its COUNTER reports are complete. The
    month M is rolled up on day 1 of M+1 (a periodic task), so it is complete by day 2."""

    month = models.DateField(_("month"), primary_key=True)
    rolled_up_at = models.DateTimeField(_("rolled up at"), db_default=Now())

    class Meta:
        ordering = ["month"]
        verbose_name = _("usage month")
        verbose_name_plural = _("usage months")

    def __str__(self) -> str:
        return self.month.strftime("%Y-%m")


class _Metrics(models.Model):
    """COUNTER R5.1's four item metrics of a month."""

    total_investigations = models.PositiveBigIntegerField(_("Total_Item_Investigations"),
                                                          default=0)
    unique_investigations = models.PositiveBigIntegerField(_("Unique_Item_Investigations"),
                                                           default=0)
    total_requests = models.PositiveBigIntegerField(_("Total_Item_Requests"), default=0)
    unique_requests = models.PositiveBigIntegerField(_("Unique_Item_Requests"), default=0)

    class Meta:
        abstract = True


class MonthlyItemUsage(_Metrics):
    """An item's metrics of one month and Access_Type, with its Data_Type, YOP and owning
    collection as they were when the month was rolled up: the Item Report reads these rows
    only, in item order."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="monthly_usage",
                             db_index=False, verbose_name=_("item"))
    month = models.DateField(_("month"))
    access_type = models.CharField(_("access type"), max_length=10, choices=AccessType.choices)
    data_type = models.CharField(_("data type"), max_length=32)
    yop = models.CharField(_("year of publication"), max_length=4)
    collection = models.ForeignKey(Collection, on_delete=models.SET_NULL, null=True,
                                   blank=True, related_name="+", db_index=False,
                                   verbose_name=_("collection"))

    class Meta:
        verbose_name = _("monthly item usage")
        verbose_name_plural = _("monthly item usage")
        # In this order: the Item Report groups an item's months per Access_Type reading
        # this index in order, with no sort (reports.py).
        constraints = [models.UniqueConstraint(fields=["item", "access_type", "month"],
                                               name="monthly_item_usage_once")]
        indexes = [
            # A month's most used items (the dashboards' top items), and a month's rows.
            models.Index(models.F("month"), models.F("total_requests").desc(),
                         name="monthly_item_usage_top"),
            models.Index(fields=["collection", "month"], name="monthly_item_usage_collection"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id} {self.month:%Y-%m} {self.access_type}"


class MonthlyFileUsage(models.Model):
    """A file's downloads of one month and Access_Type (its item's component, rolled up with
    the month: rollup.py), read for the Item Report's Components."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+",
                             db_index=False, verbose_name=_("item"))
    name = models.CharField(_("file"), max_length=255)
    month = models.DateField(_("month"))
    access_type = models.CharField(_("access type"), max_length=10, choices=AccessType.choices)
    requests = models.PositiveBigIntegerField(_("Total_Item_Requests"), default=0)

    class Meta:
        verbose_name = _("monthly file usage")
        verbose_name_plural = _("monthly file usage")
        constraints = [models.UniqueConstraint(fields=["item", "month", "access_type", "name"],
                                               name="monthly_file_usage_once")]
        indexes = [models.Index(fields=["month"], name="monthly_file_usage_month")]

    def __str__(self) -> str:
        return f"{self.item_id} {self.name} {self.month:%Y-%m} {self.access_type}"


class MonthlyCollectionUsage(_Metrics):
    """A collection's metrics of one month, Access_Type and Data_Type: the sums of its items'
    rows, so the Platform Report and the dashboards of the repository, a community or a
    collection read a few rows a month. `mapped` False: the items it owns (each item is in
    one such row, what the Platform Report and a community sum); True: the items mapped into
    it from other collections (what its own dashboard adds)."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+",
                                   db_index=False, verbose_name=_("collection"))
    month = models.DateField(_("month"))
    access_type = models.CharField(_("access type"), max_length=10, choices=AccessType.choices)
    data_type = models.CharField(_("data type"), max_length=32)
    mapped = models.BooleanField(_("mapped items"), default=False, db_default=False)

    class Meta:
        verbose_name = _("monthly collection usage")
        verbose_name_plural = _("monthly collection usage")
        constraints = [models.UniqueConstraint(
            fields=["collection", "month", "access_type", "data_type", "mapped"],
            name="monthly_collection_usage_once")]
        indexes = [models.Index(fields=["month"], name="monthly_collection_usage_month")]

    def __str__(self) -> str:
        return f"{self.collection_id} {self.month:%Y-%m} {self.access_type} {self.data_type}"


class DailySearchCount(models.Model):
    """The searches readers ran on the site on one UTC day (COUNTER R5.1's Searches_Platform:
    robots left out, a further page of results is the same search); archive/usage/counter.py
    adds to it in batches. No query and no reader is kept."""

    day = models.DateField(_("day"), primary_key=True)
    n = models.PositiveBigIntegerField(_("searches"), default=0, db_default=0)

    class Meta:
        ordering = ["day"]
        verbose_name = _("daily search count")
        verbose_name_plural = _("daily search counts")

    def __str__(self) -> str:
        return f"{self.day}: {self.n}"


class CounterCustomer(models.Model):
    """A customer of the COUNTER API (a library, a funder, an aggregator): who may harvest
    the reports with one of its keys (CounterApiKey)."""

    customer_id = models.SlugField(_("customer ID"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=200)
    notes = models.CharField(_("notes"), max_length=1000, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("COUNTER API customer")
        verbose_name_plural = _("COUNTER API customers")

    def __str__(self) -> str:
        return f"{self.name} ({self.customer_id})"


class CounterApiKey(models.Model):
    """An API key of a customer, kept as its SHA-256 only (the key is shown once, when a
    librarian issues it); a revoked key is refused from the moment it is revoked."""

    customer = models.ForeignKey(CounterCustomer, on_delete=models.CASCADE,
                                 related_name="api_keys", verbose_name=_("customer"))
    key_hash = models.CharField(_("key hash"), max_length=64, unique=True, editable=False)
    prefix = models.CharField(_("key starts with"), max_length=8, editable=False)
    created = models.DateTimeField(_("issued at"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("COUNTER API key")
        verbose_name_plural = _("COUNTER API keys")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.customer.customer_id})"
