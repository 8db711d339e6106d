"""The COUNTER API (formerly SUSHI), Release 5.1, at /r51/ (docs/api/counter.md): plain Django
views, outside the REST API's DRF (its OpenAPI schema is COUNTER's own,
api-specification/COUNTER_API.json, not ours).

`status` is public; `members`, `reports` and the reports ask for an API key (`api_key`, issued
by a librarian in the admin) and a `customer_id` (the key's customer's, or 0000000000000000
for the global usage). A refusal is one COUNTER Exception object with its HTTP status
(Appendix D); a report's own Exceptions ride in its header. The Item Report is streamed.
"""
from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe

from ...usage import cop, reports, selectors
from ...web.addresses import base_url

_JSON = "application/json; charset=utf-8"


def _platform(request: HttpRequest) -> reports.Platform:
    return reports.Platform(name=settings.IBI_COUNTER_PLATFORM,
                            namespace=settings.IBI_COUNTER_NAMESPACE,
                            publisher=settings.IBI_COUNTER_PUBLISHER,
                            base_url=base_url(request))


def _refused(error: cop.CounterError) -> JsonResponse:
    response = JsonResponse(error.body(), status=error.status,
                            json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "no-store"
    return response


def _customer(request: HttpRequest, *, needs_customer_id: bool = True):
    """The customer whose key the request names; CounterError 2020, 1030 or 2010."""
    params = {k.lower(): v for k, v in request.GET.items()}
    customer = selectors.api_customer(params.get("api_key", "").strip())
    if customer is None:
        raise cop.CounterError(2020, "a valid api_key is required" if params.get("api_key")
                               else "api_key is missing")
    asked = params.get("customer_id", "").strip()
    if needs_customer_id and not asked:
        raise cop.CounterError(1030, "customer_id is missing")
    if asked and asked not in (customer.customer_id, cop.GLOBAL_CUSTOMER):
        raise cop.CounterError(2010, f"the key is not {asked}'s")
    return customer


@require_safe
def status(request: HttpRequest) -> JsonResponse:
    first, last = reports.available()
    note = (f"Usage from {first:%Y-%m} to {last:%Y-%m}; month M is complete on day 2 of M+1."
            if last else "No month of usage processed yet.")
    return JsonResponse([{"Description": f"COUNTER API of {settings.IBI_COUNTER_PLATFORM}",
                          "Service_Active": True, "Registry_Record": "", "Note": note}],
                        safe=False, json_dumps_params={"ensure_ascii": False})


@require_safe
def members(request: HttpRequest) -> JsonResponse:
    try:
        customer = _customer(request, needs_customer_id=False)
    except cop.CounterError as error:
        return _refused(error)
    return JsonResponse([{"Customer_ID": customer.customer_id,
                          "Institution_Name": customer.name}],
                        safe=False, json_dumps_params={"ensure_ascii": False})


@require_safe
def report_list(request: HttpRequest) -> JsonResponse:
    try:
        _customer(request, needs_customer_id=False)
    except cop.CounterError as error:
        return _refused(error)
    first, last = reports.available()
    if last is None:  # nothing processed: the current month, which no report has yet
        first = last = timezone.now().date().replace(day=1)
    return JsonResponse([{"Report_Name": r.name, "Report_ID": r.id, "Release": cop.RELEASE,
                          "Report_Description": r.description, "Path": r.path,
                          "First_Month_Available": f"{first:%Y-%m}",
                          "Last_Month_Available": f"{last:%Y-%m}"}
                         for r in cop.REPORTS.values()], safe=False)


@require_safe
def report(request: HttpRequest, report_id: str) -> HttpResponse:
    """A report: PR and PR_P1 whole, IR and IR_A1 streamed."""
    try:
        if report_id.lower() not in cop.REPORTS:  # the path first: 404 whoever asks
            raise cop.CounterError(3000, f"no report {report_id!r}")
        customer = _customer(request)
        _first, last = reports.available()
        asked = cop.read(report_id, dict(request.GET.items()), today=timezone.now().date(),
                         last_available=last)
    except cop.CounterError as error:
        return _refused(error)
    now = timezone.now()
    if not asked.report.item_level:
        document = reports.platform_report(asked, _platform(request), customer_name=customer.name,
                                           now=now)
        return HttpResponse(json.dumps(document, ensure_ascii=False), content_type=_JSON)
    pieces = reports.item_report(asked, _platform(request), customer_name=customer.name,
                                 now=now)
    return StreamingHttpResponse((piece.encode() for piece in pieces), content_type=_JSON)
