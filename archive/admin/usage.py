"""Usage in the admin (issue 39): the dashboards (usage per month of the repository, a
community, a collection or an item, as a chart with its table and a CSV; top items and top
collections), and the COUNTER API's customers and their keys, issued and revoked here."""
from __future__ import annotations

import csv

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.formats import date_format
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..models import CounterApiKey, CounterCustomer, UsageMonth
from ..usage import charts, dashboard, services

_LABELS = {"total_investigations": _("Total investigations"),
           "unique_investigations": _("Unique investigations"),
           "total_requests": _("Total requests"), "unique_requests": _("Unique requests")}


@admin.register(CounterCustomer)
class CounterCustomerAdmin(admin.ModelAdmin):
    list_display = ("name", "customer_id", "created")
    search_fields = ("name", "customer_id")
    readonly_fields = ("keys",)
    actions = ["issue_key"]

    @admin.display(description=_("API keys"))
    def keys(self, customer: CounterCustomer) -> str:
        """Its keys by their first characters, issued and revoked (none on the add form)."""
        if customer.pk is None:
            return "—"
        field = CounterApiKey._meta.get_field  # their own labels: "issued at", "revoked at"
        issued, revoked = field("created").verbose_name, field("revoked_at").verbose_name
        return format_html_join(
            mark_safe("<br>"), "{}… · {} {}{}",
            ((key.prefix, issued, date_format(key.created, "SHORT_DATETIME_FORMAT"),
              f" · {revoked} {date_format(key.revoked_at, 'SHORT_DATETIME_FORMAT')}"
              if key.revoked_at else "")
             for key in customer.api_keys.all())) or "—"

    @admin.action(description=_("Issue a new API key"), permissions=["change"])
    def issue_key(self, request: HttpRequest, queryset) -> None:
        for customer in queryset:
            key = services.issue_key(customer)
            # Shown once: only its hash is kept.
            self.message_user(request, _("API key of %(customer)s (copy it now: it is not "
                                         "shown again): %(key)s")
                              % {"customer": customer.customer_id, "key": key},
                              messages.WARNING)


@admin.register(CounterApiKey)
class CounterApiKeyAdmin(admin.ModelAdmin):
    list_display = ("prefix", "customer", "created", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    readonly_fields = ("customer", "prefix", "created", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        return False  # issued from the customer's list ("Issue a new API key")

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # revoked, and kept as a record

    @admin.action(description=_("Revoke the selected API keys"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset) -> None:
        revoked = services.revoke_keys(queryset)
        self.message_user(request, ngettext("%(n)d key revoked.", "%(n)d keys revoked.",
                                            revoked) % {"n": revoked}, messages.SUCCESS)


@admin.register(UsageMonth)
class UsageDashboardAdmin(admin.ModelAdmin):
    """Its list is the dashboard: ?scope=repository|community|collection|item&id=N,
    &format=csv for the table as CSV."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        scope = request.GET.get("scope", "repository")
        scope = scope if scope in dashboard.SCOPES else "repository"
        try:
            pk = int(request.GET.get("id", "")) if scope != "repository" else None
        except ValueError:
            pk = None
        name = dashboard.scope_name(scope, pk)
        if name is None:
            scope, pk, name = "repository", None, ""
        months = dashboard.recent_months()
        rows = dashboard.series(scope, pk, months)
        if request.GET.get("format") == "csv":
            return self._csv(rows, scope, pk)
        labels = [m.strftime("%Y-%m") for m in months]
        scope_label = {"repository": _("the repository"), "community": _("community"),
                       "collection": _("collection"), "item": _("item")}[scope]
        title = (_("Usage per month of %(scope)s %(name)s")
                 % {"scope": scope_label, "name": name}).strip()
        chart = charts.bar_chart(
            labels, [(str(_LABELS["total_investigations"]),
                      [r["total_investigations"] for r in rows]),
                     (str(_LABELS["total_requests"]), [r["total_requests"] for r in rows])],
            title=title, description=str(_("Bars per month; the table below has the values.")))
        last = months[-1] if months else None
        return TemplateResponse(request, "admin/archive/usagemonth/dashboard.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": _("Usage dashboard"), "chart_title": title, "chart": chart,
            "rows": [{"label": date_format(r["month"], "YEAR_MONTH_FORMAT"),
                      "values": [r[m] for m in dashboard.METRICS]} for r in rows],
            "headers": [_LABELS[m] for m in dashboard.METRICS],
            "scope": scope, "pk": pk or "", "scopes": [
                ("repository", _("Repository")), ("community", _("Community")),
                ("collection", _("Collection")), ("item", _("Item"))],
            "last_month": last and date_format(last, "YEAR_MONTH_FORMAT"),
            "top_items": dashboard.top_items(last) if last else [],
            "top_collections": dashboard.top_collections(last) if last else [],
        })

    def _csv(self, rows: list[dict], scope: str, pk: int | None) -> HttpResponse:
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        name = f"usage-{scope}{'-' + str(pk) if pk else ''}.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        writer = csv.writer(response)
        writer.writerow(["Month", "Total_Item_Investigations", "Unique_Item_Investigations",
                         "Total_Item_Requests", "Unique_Item_Requests"])
        for row in rows:
            writer.writerow([row["month"].strftime("%Y-%m"),
                             *(row[m] for m in dashboard.METRICS)])
        return response
