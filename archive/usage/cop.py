"""COUNTER Release 5.1's Code of Practice, the parts a repository needs: the reports it serves
(the Platform Report and the Item Report with their Standard Views), their filters and
attributes as the COUNTER API's paths take them (§8, api-specification/COUNTER_API.json), the
Exceptions of Appendix D, and the mapping of an item's type to a Data_Type (§3.3.2). Plain
functions, no database: reports.py reads the counts, api/views/counter.py answers HTTP.

A request's parameters are read into a `Request`:

    >>> from datetime import date
    >>> asked = read("ir", {"customer_id": "0000000000000000", "begin_date": "2026-01",
    ...                     "end_date": "2026-03-31", "metric_type": "Total_Item_Requests",
    ...                     "attributes_to_show": "Access_Type|YOP"}, today=date(2026, 11, 29),
    ...              last_available=date(2026, 10, 1))
    >>> asked.begin, asked.end
    (datetime.date(2026, 1, 1), datetime.date(2026, 3, 1))
    >>> asked.metrics, asked.attributes
    (('Total_Item_Requests',), ('YOP', 'Access_Type'))
    >>> asked.exceptions
    []
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime

from ..refusals import Refusal

RELEASE = "5.1"
GLOBAL_CUSTOMER = "0000000000000000"  # "The World": usage of everyone (Appendix D, 2011)
MAX_ITEM_PERFORMANCE = 3  # Authors: at most 3 (the API's Authors schema)

# Appendix D, Table D.1: code → (message, HTTP status). 3000 is Release 5's "Report Not
# Supported": Release 5.1 answers an unknown path with 404 and names no code, so the body of
# that 404 keeps R5's number for the clients that read one.
EXCEPTIONS: dict[int, tuple[str, int]] = {
    1000: ("Service Not Available", 503),
    1030: ("Insufficient Information to Process Request", 400),
    2000: ("Requestor Not Authorized to Access Service", 401),
    2010: ("Requestor is Not Authorized to Access Usage for Institution", 403),
    2020: ("APIKey Invalid", 401),
    3000: ("Report Not Supported", 404),
    3020: ("Invalid Date Arguments", 400),
    3030: ("No Usage Available for Requested Dates", 200),
    3031: ("Usage Not Ready for Requested Dates", 200),
    3032: ("Usage No Longer Available for Requested Dates", 200),
    3050: ("Parameter Not Recognized in this Context", 200),
    3060: ("Invalid ReportFilter Value", 200),
    3062: ("Invalid ReportAttribute Value", 200),
}


def exception(code: int, data: str = "") -> dict:
    """The Exception object of a code (Appendix D's JSON), with its Data when there is some.

    >>> exception(3030)
    {'Code': 3030, 'Message': 'No Usage Available for Requested Dates'}
    """
    found = {"Code": code, "Message": EXCEPTIONS[code][0] if code in EXCEPTIONS else "Info"}
    if data:
        found["Data"] = data
    return found


class CounterError(Refusal):
    """A request the COUNTER API refuses: one Exception, answered with its HTTP status."""

    def __init__(self, code: int, data: str = "") -> None:
        self.code, self.data = code, data
        self.status = EXCEPTIONS[code][1]
        super().__init__(f"{code}: {EXCEPTIONS[code][0]}" + (f" ({data})" if data else ""))

    def body(self) -> dict:
        return exception(self.code, self.data)


METRICS = ("Total_Item_Investigations", "Unique_Item_Investigations", "Total_Item_Requests",
           "Unique_Item_Requests")
SEARCHES = "Searches_Platform"  # the Platform Report's, under the Data_Type Platform
PLATFORM_METRICS = (SEARCHES, *METRICS)
PLATFORM = "Platform"
REQUEST_METRICS = ("Total_Item_Requests", "Unique_Item_Requests")
# The Data_Types of a repository's items (IR's enumeration: not the titles' Book or Journal).
DATA_TYPES = ("Article", "Audiovisual", "Book_Segment", "Conference_Item", "Dataset", "Image",
              "Interactive_Resource", "Multimedia", "News_Item", "Other", "Patent",
              "Reference_Item", "Report", "Software", "Sound", "Standard",
              "Thesis_or_Dissertation", "Unspecified")
ACCESS_TYPES = {"open": "Open", "controlled": "Controlled"}  # AccessType → Access_Type


@dataclass(frozen=True)
class Report:
    """A report the API serves: its id, name, path and what may be asked of it."""

    id: str
    name: str
    description: str
    filters: frozenset[str] = frozenset()  # the API's filter parameters it takes
    attributes: frozenset[str] = frozenset()  # Attributes_To_Show values it takes
    parameters: frozenset[str] = frozenset()  # other report attributes (granularity…)
    fixed: dict = field(default_factory=dict)  # a Standard View's filters
    item_level: bool = False
    metrics: tuple[str, ...] = METRICS  # the Metric_Types it reports, in the Code's order
    data_types: tuple[str, ...] = DATA_TYPES  # the Data_Types it may be asked for

    @property
    def path(self) -> str:
        return f"/r51/reports/{self.id.lower()}"


REPORTS: dict[str, Report] = {r.id.lower(): r for r in (
    Report("PR", "Platform Report",
           "A customizable report summarizing activity across the repository.",
           filters=frozenset({"metric_type", "data_type", "access_method"}),
           attributes=frozenset({"Access_Method"}), parameters=frozenset({"granularity"}),
           metrics=PLATFORM_METRICS, data_types=(*DATA_TYPES, PLATFORM)),
    Report("PR_P1", "Platform Usage",
           "Standard View of the Platform Report: the repository's requests.",
           fixed={"Access_Method": ["Regular"],
                  "Metric_Type": ["Searches_Platform", "Total_Item_Requests",
                                  "Unique_Item_Requests", "Unique_Title_Requests"]},
           metrics=PLATFORM_METRICS),
    Report("IR", "Item Report",
           "A granular, customizable report of the activity of each item of the repository.",
           filters=frozenset({"metric_type", "data_type", "access_method", "access_type", "yop",
                              "item_id"}),
           attributes=frozenset({"YOP", "Access_Type", "Access_Method"}),
           parameters=frozenset({"granularity", "include_parent_details",
                                 "include_component_details"}),
           item_level=True),
    Report("IR_A1", "Journal Article Requests",
           "Standard View of the Item Report: requests of the repository's articles.",
           fixed={"Access_Method": ["Regular"], "Data_Type": ["Article"],
                  "Metric_Type": ["Total_Item_Requests", "Unique_Item_Requests"]},
           item_level=True),
)}

# Parameters every report path takes (authentication, platform, dates).
COMMON = frozenset({"customer_id", "requestor_id", "api_key", "platform", "begin_date",
                    "end_date"})


def data_type(kind_openaire: str, kind_datacite: str, coar: str) -> str:
    """R5.1's Data_Type of an item of a COAR resource type (metadata/vocabularies.py's Kind:
    its DataCite and OpenAIRE names too); "" for no type at all: Unspecified.

    >>> data_type("literature", "Dissertation", "c_db06"), data_type("", "", "")
    ('Thesis_or_Dissertation', 'Unspecified')
    >>> data_type("literature", "JournalArticle", "c_6501")
    'Article'
    >>> data_type("dataset", "Dataset", "c_ddb1")
    'Dataset'
    """
    if not coar:
        return "Unspecified"
    return _BY_COAR.get(coar) or _BY_DATACITE.get(kind_datacite, "Other")


_BY_DATACITE = {"Dissertation": "Thesis_or_Dissertation", "JournalArticle": "Article",
                "Preprint": "Article", "DataPaper": "Article", "BookChapter": "Book_Segment",
                "ConferencePaper": "Conference_Item", "ConferenceProceeding": "Conference_Item",
                "Event": "Conference_Item", "Report": "Report", "Dataset": "Dataset",
                "Software": "Software", "Image": "Image", "Audiovisual": "Audiovisual",
                "Sound": "Sound", "InteractiveResource": "Interactive_Resource"}
_BY_COAR = {"c_15cd": "Patent", "c_6670": "Conference_Item", "c_8544": "Conference_Item",
            "c_12cd": "Image", "c_12cc": "Image"}


def yop(issued: str) -> str:
    """R5.1's YOP of an item issued on `issued` (ISO 8601, or a year): "0001" when unknown.

    >>> yop("2021-03-04"), yop("1999"), yop("")
    ('2021', '1999', '0001')
    """
    return issued[:4] if re.match(r"\d{4}", issued or "") and issued[:4] != "0000" else "0001"


# -- Reading a request -----------------------------------------------------------------------

@dataclass
class Request:
    report: Report
    customer_id: str
    begin: date  # first of the first month
    end: date  # first of the last month
    metrics: tuple[str, ...] = METRICS
    data_types: tuple[str, ...] = ()
    access_types: tuple[str, ...] = ()  # Access_Type values ("Open", "Controlled")
    yops: tuple[tuple[int, int], ...] = ()
    item_id: str = ""
    attributes: tuple[str, ...] = ()
    granularity: str = "Month"
    nothing_ready: bool = False  # no month asked is rolled up yet (3031 says which)
    components: bool = False  # each item's files with their usage (Include_Component_Details)
    filters_shown: dict = field(default_factory=dict)
    attributes_shown: dict = field(default_factory=dict)
    exceptions: list = field(default_factory=list)

    @property
    def months(self) -> list[date]:
        return months(self.begin, self.end)


def months(begin: date, end: date) -> list[date]:
    """The first days of the months from begin's to end's.

    >>> [m.isoformat() for m in months(date(2025, 11, 1), date(2026, 1, 1))]
    ['2025-11-01', '2025-12-01', '2026-01-01']
    """
    found, month = [], begin.replace(day=1)
    while month <= end:
        found.append(month)
        month = next_month(month)
    return found


def next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def last_day(month: date) -> date:
    return date.fromordinal(next_month(month).toordinal() - 1)


def _month(value: str, name: str) -> date:
    """A begin_date or end_date (yyyy-mm or yyyy-mm-dd) as its month's first day; 3020."""
    match = re.fullmatch(r"(\d{4})-(\d{2})(?:-(\d{2}))?", value.strip())
    try:
        if match is None:
            raise ValueError(value)
        day = date(int(match[1]), int(match[2]), int(match[3] or 1))
    except ValueError:
        raise CounterError(3020, f"{name} {value!r} is not yyyy-mm or yyyy-mm-dd") from None
    return day.replace(day=1)


def _values(value: str) -> list[str]:
    return [v.strip() for v in value.split("|") if v.strip()]


def read(report_id: str, params: dict[str, str], *, today: date,
         last_available: date | None = None) -> Request:
    """The request of a report path's parameters (the API's, case-insensitive names):
    CounterError for what stops it (1030, 3020, 3000); the Exceptions a report carries on
    (3031, 3050, 3060, 3062) in `exceptions`. `last_available`: the last month rolled
    up (None: none yet); a month later than it is not ready (3031)."""
    report = REPORTS.get(report_id.lower())
    if report is None:
        raise CounterError(3000, f"no report {report_id!r}: {', '.join(REPORTS)}")
    params = {k.lower(): v for k, v in params.items()}
    missing = [name for name in ("customer_id", "begin_date", "end_date")
               if not params.get(name, "").strip()]
    if missing:
        raise CounterError(1030, "missing: " + ", ".join(missing))
    begin = _month(params["begin_date"], "begin_date")
    end = _month(params["end_date"], "end_date")
    current = today.replace(day=1)
    if end < begin:
        raise CounterError(3020, "end_date is before begin_date")
    if begin >= current:
        raise CounterError(3020, "begin_date is the current month or later: no usage yet")
    asked = Request(report=report, customer_id=params["customer_id"].strip(), begin=begin,
                    end=end, metrics=report.metrics)
    ready = last_available if last_available is not None else date(1, 1, 1)
    if end > ready:
        not_ready = [m for m in months(max(begin, next_month(ready)), end)]
        asked.exceptions.append(exception(3031, "usage is not ready for "
                                          + ", ".join(m.strftime("%Y-%m") for m in not_ready)))
        if ready < begin:
            asked.nothing_ready = True
        else:
            asked.end = ready
    asked.filters_shown = {"Begin_Date": begin.isoformat(),
                           "End_Date": last_day(end).isoformat()}
    unknown = sorted(set(params) - COMMON - report.filters - report.parameters
                     - {"attributes_to_show"})
    if unknown:
        asked.exceptions.append(exception(3050, ", ".join(unknown)))
    _filters(asked, params)
    _attributes(asked, params)
    if report.fixed:
        asked.filters_shown.update(report.fixed)
        fixed = report.fixed
        asked.metrics = tuple(m for m in report.metrics if m in fixed["Metric_Type"])
        asked.data_types = tuple(fixed.get("Data_Type", ()))
    return asked


def _bad_filter(asked: Request, name: str, values: list[str]) -> None:
    asked.exceptions.append(exception(3060, f"{name}: {'|'.join(values)}"))


def _filters(asked: Request, params: dict[str, str]) -> None:
    takes = asked.report.filters
    if "metric_type" in takes and params.get("metric_type"):
        wanted, metrics = _values(params["metric_type"]), asked.report.metrics
        known = [m for m in wanted if m in metrics]
        if len(known) < len(wanted):
            _bad_filter(asked, "metric_type", [m for m in wanted if m not in metrics])
        if known:
            asked.metrics = tuple(m for m in metrics if m in known)
            asked.filters_shown["Metric_Type"] = list(asked.metrics)
    if "data_type" in takes and params.get("data_type"):
        wanted, types = _values(params["data_type"]), asked.report.data_types
        known = [d for d in wanted if d in types]
        if len(known) < len(wanted):
            _bad_filter(asked, "data_type", [d for d in wanted if d not in types])
        if known:
            asked.data_types = tuple(known)
            asked.filters_shown["Data_Type"] = known
    if "access_method" in takes and params.get("access_method"):
        wanted = _values(params["access_method"])
        if [m for m in wanted if m != "Regular"]:  # no TDM is told apart here
            _bad_filter(asked, "access_method", [m for m in wanted if m != "Regular"])
        if "Regular" in wanted:
            asked.filters_shown["Access_Method"] = ["Regular"]
    if "access_type" in takes and params.get("access_type"):
        wanted = _values(params["access_type"])
        known = [a for a in wanted if a in ACCESS_TYPES.values()]
        if len(known) < len(wanted):
            _bad_filter(asked, "access_type", [a for a in wanted if a not in known])
        if known:
            asked.access_types = tuple(known)
            asked.filters_shown["Access_Type"] = known
    if "yop" in takes and params.get("yop"):
        ranges, bad = [], []
        for value in _values(params["yop"]):
            match = re.fullmatch(r"(\d{4})(?:-(\d{4}))?", value)
            if match and int(match[2] or match[1]) >= int(match[1]):
                ranges.append((int(match[1]), int(match[2] or match[1])))
            else:
                bad.append(value)
        if bad:
            _bad_filter(asked, "yop", bad)
        if ranges:
            asked.yops = tuple(ranges)
            asked.filters_shown["YOP"] = [v for v in _values(params["yop"]) if v not in bad]
    if "item_id" in takes and params.get("item_id"):
        asked.item_id = params["item_id"].strip()
        asked.filters_shown["Item_ID"] = asked.item_id


def _attributes(asked: Request, params: dict[str, str]) -> None:
    report = asked.report
    if params.get("attributes_to_show"):
        wanted = _values(params["attributes_to_show"])
        known = [a for a in wanted if a in report.attributes]
        if len(known) < len(wanted):
            asked.exceptions.append(exception(3062, "attributes_to_show: " + "|".join(
                a for a in wanted if a not in known)))
        order = ("YOP", "Access_Type", "Access_Method")
        asked.attributes = tuple(a for a in order if a in known)
        if asked.attributes:
            asked.attributes_shown["Attributes_To_Show"] = list(asked.attributes)
    if "granularity" in report.parameters and params.get("granularity"):
        value = params["granularity"].strip()
        if value in ("Total", "Totals"):
            asked.granularity = "Total"
            asked.attributes_shown["Granularity"] = "Total"
        elif value != "Month":
            asked.exceptions.append(exception(3062, f"granularity: {value}"))
    if "include_parent_details" in report.parameters and params.get("include_parent_details"):
        value = params["include_parent_details"].strip().capitalize()
        if value in ("True", "False"):  # no item here has a parent: the items are the same
            asked.attributes_shown["Include_Parent_Details"] = value
        else:
            asked.exceptions.append(exception(3062, f"include_parent_details: {value}"))
    if "include_component_details" in report.parameters \
            and params.get("include_component_details"):
        value = params["include_component_details"].strip().capitalize()
        if value in ("True", "False"):  # an item's files are its components
            asked.components = value == "True"
            asked.attributes_shown["Include_Component_Details"] = value
        else:
            asked.exceptions.append(exception(3062, f"include_component_details: {value}"))


# -- Writing a report ------------------------------------------------------------------------

def created(now: datetime) -> str:
    """RFC 3339, UTC, to the second.

    >>> from datetime import UTC
    >>> created(datetime(2026, 11, 29, 12, 0, 5, 123, tzinfo=UTC))
    '2026-11-29T12:00:05Z'
    """
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def header(asked: Request, *, institution: str, namespace: str, created_by: str,
           now: datetime, exceptions: list[dict]) -> dict:
    """The Report_Header (§3.2, Base_Report_Header)."""
    found = {
        "Report_Name": asked.report.name,
        "Report_ID": asked.report.id,
        "Release": RELEASE,
        "Institution_Name": institution,
        "Institution_ID": {"Proprietary": [f"{namespace}:{asked.customer_id}"]},
        "Report_Filters": asked.filters_shown,
    }
    if asked.attributes_shown and not asked.report.fixed:
        found["Report_Attributes"] = asked.attributes_shown
    if exceptions:
        found["Exceptions"] = exceptions
    found.update({"Created": created(now), "Created_By": created_by, "Registry_Record": ""})
    return found


def counts(by_month: dict[date, int], granularity: str, begin: date) -> dict[str, int]:
    """A Counts object: the months with usage (none with 0: R5.1 leaves them out), or with
    Granularity Total their sum under the first month asked.

    >>> counts({date(2026, 2, 1): 3, date(2026, 1, 1): 0}, "Month", date(2026, 1, 1))
    {'2026-02': 3}
    >>> counts({date(2026, 2, 1): 3, date(2026, 3, 1): 2}, "Total", date(2026, 1, 1))
    {'2026-01': 5}
    """
    if granularity == "Total":
        total = sum(by_month.values())
        return {begin.strftime("%Y-%m"): total} if total else {}
    return {m.strftime("%Y-%m"): n for m, n in sorted(by_month.items()) if n}


def in_yops(year: str, yops: tuple[tuple[int, int], ...]) -> bool:
    return not yops or any(low <= int(year) <= high for low, high in yops)
