"""/usage/: the repository's usage in public (issue 39), when the operator allows it
(IBI_USAGE_PUBLIC; else 404): COUNTER R5.1's metrics per month as a chart with its table,
and the month's most requested collections. Counts only: no reader, no item's file."""
from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from ..usage import charts, dashboard


@require_safe
def summary(request: HttpRequest) -> HttpResponse:
    if not settings.IBI_USAGE_PUBLIC:
        raise Http404(_("The usage summary is not public here."))
    months = dashboard.recent_months()
    rows = dashboard.series("repository", None, months)
    title = _("Usage of the repository per month")
    chart = charts.bar_chart(
        [m.strftime("%Y-%m") for m in months],
        [(_("Total investigations"), [r["total_investigations"] for r in rows]),
         (_("Total requests"), [r["total_requests"] for r in rows])],
        title=title, description=_("Bars per month; the table below has the values."))
    last = months[-1] if months else None
    return render(request, "archive/site/usage.html", {
        "title": title, "chart": chart,
        "rows": [{"label": date_format(r["month"], "YEAR_MONTH_FORMAT"),
                  "values": [r[m] for m in dashboard.METRICS]} for r in rows],
        "last_month": last and date_format(last, "YEAR_MONTH_FORMAT"),
        "top_collections": dashboard.top_collections(last) if last else []})
