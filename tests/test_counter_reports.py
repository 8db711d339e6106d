"""COUNTER R5.1 (issue 39): a generated access log with known robots, double clicks, sessions,
open and controlled accesses, counted as the site counts, rolled up, and reported through the
COUNTER API at /r51/; the reports' totals equal a recount of the log by COUNTER's rules, and
celus-nigiri (the harvesters' parser) reads every report with no error. Then the Exceptions
and the API keys."""
from __future__ import annotations

import io
import json
import random
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from celus_nigiri.counter51 import Counter51IRReport, Counter51PRReport
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from archive.deposit.services import Access
from archive.models import (
    AccessRights,
    CounterCustomer,
    DailyAccessCount,
    DailyFileCount,
    DailySearchCount,
)
from archive.usage import counter as access_counter
from archive.usage import rollup, services
from tests import factories as make

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"
ROBOTS = ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
          "curl/8.5.0")
GLOBAL = "0000000000000000"
SPEC = json.loads((Path(__file__).parent / "data/counter/COUNTER_API.json").read_text())
_REGISTRY = Registry().with_resource("urn:counter-api", Resource.opaque(SPEC))


def conforms(document, schema: str) -> list[str]:
    """What the COUNTER API Specification's schema (components/schemas/<schema>) finds wrong
    with the document: [] when it conforms."""
    validator = Draft202012Validator({"$ref": f"urn:counter-api#/components/schemas/{schema}"},
                                     registry=_REGISTRY)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in validator.iter_errors(document)]


@pytest.fixture
def items():
    thesis = make.item("a.pdf", title="Uma tese")
    make.dc_value(thesis, "type", "tese de doutorado")
    make.dc_value(thesis, "date", "2021-05-02")
    article = make.item("b.pdf", title="An article",
                        access=Access(rights=AccessRights.RESTRICTED, reason="publisher"))
    make.dc_value(article, "type", "journal article")
    make.dc_value(article, "date", "2024")
    other = make.item("c.pdf", title="Untyped")
    return {"thesis": thesis, "article": article, "other": other}


def generated_log(items, seed: int = 39) -> list[tuple]:
    """(item, kind, url, ip, agent, at, access type) over September and October 2026:
    readers in sessions, each clicking landing pages and files, some twice within 30 s, and
    robots."""
    rng = random.Random(seed)
    log = []
    for _ in range(300):
        name = rng.choice(list(items))
        item = items[name]
        access = "controlled" if name == "article" else "open"
        start = datetime(2026, 9, 1, tzinfo=UTC) + timedelta(
            minutes=rng.randrange(60 * 24 * 60))
        ip, agent = f"10.0.{rng.randrange(4)}.{rng.randrange(8)}", rng.choice(
            (FIREFOX, CHROME, *ROBOTS) if rng.random() < 0.2 else (FIREFOX, CHROME))
        at = start
        for _click in range(rng.randrange(1, 5)):
            kind, url = rng.choice((("investigation", "landing"),
                                    ("investigation", "metadata/bibtex"),
                                    ("download", "a.pdf"), ("download", "dados.csv")))
            log.append((item, kind, url, ip, agent, at, access))
            if rng.random() < 0.3:  # a double click
                log.append((item, kind, url, ip, agent, at + timedelta(seconds=rng.randrange(
                    1, 30)), access))
            at += timedelta(seconds=rng.randrange(5, 900))
    return sorted(log, key=lambda entry: entry[5])


def generated_searches(seed: int = 39) -> list[tuple[str, datetime]]:
    """(agent, at) of the searches run over September and October 2026, a fifth by robots."""
    rng = random.Random(seed)
    return [(rng.choice(ROBOTS) if rng.random() < 0.2 else rng.choice((FIREFOX, CHROME)),
             datetime(2026, 9, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(60 * 24 * 61)))
            for _ in range(120)]


def recount_searches(searches) -> Counter:
    """Searches_Platform by month: the searches robots did not run."""
    return Counter(at.strftime("%Y-%m") for agent, at in searches if agent not in ROBOTS)


def kept_by_filters(log) -> list[tuple]:
    """The log's accesses COUNTER counts: no robot's, one of each double click."""
    last: dict[tuple, datetime] = {}
    kept = []
    for item, kind, url, ip, agent, at, access in log:
        if agent in ROBOTS:
            continue
        key = (item.pk, kind, url, ip, agent)
        double = key in last and (at - last[key]).total_seconds() < 30
        last[key] = at
        if double:  # the run counts once: keep the first (same session, same month here)
            continue
        kept.append((item, kind, url, ip, agent, at, access))
    return kept


def recount_files(log) -> Counter:
    """Each file's downloads by hand: (ibi, file, month) → n."""
    return Counter((item.ibi, url, at.strftime("%Y-%m"))
                   for item, kind, url, _ip, _agent, at, _access in kept_by_filters(log)
                   if kind == "download")


def recount(log) -> Counter:
    """COUNTER's rules applied to the log by hand: (ibi, month, access, metric) → n."""
    kept = [(item, kind, ip, agent, at, access)
            for item, kind, _url, ip, agent, at, access in kept_by_filters(log)]
    totals: Counter = Counter()
    sessions: set = set()
    for item, kind, ip, agent, at, access in kept:
        month = at.strftime("%Y-%m")
        hour = at.replace(minute=0, second=0, microsecond=0)
        totals[item.ibi, month, access, "Total_Item_Investigations"] += 1
        if (item.pk, access, ip, agent, hour, "i") not in sessions:
            sessions.add((item.pk, access, ip, agent, hour, "i"))
            totals[item.ibi, month, access, "Unique_Item_Investigations"] += 1
        if kind == "download":
            totals[item.ibi, month, access, "Total_Item_Requests"] += 1
            if (item.pk, access, ip, agent, hour, "r") not in sessions:
                sessions.add((item.pk, access, ip, agent, hour, "r"))
                totals[item.ibi, month, access, "Unique_Item_Requests"] += 1
    return totals


@pytest.fixture
def key():
    customer = CounterCustomer.objects.create(customer_id="ufx", name="Universidade X")
    return services.issue_key(customer)


@pytest.fixture
def counted(items, key):
    log = generated_log(items)
    for item, kind, url, ip, agent, at, access in log:
        access_counter.count(item.pk, [ip], url, at, user_agent=agent, kind=kind,
                             access_type=access)
    for agent, at in generated_searches():
        access_counter.count_search(agent, at)
    for month in (date(2026, 9, 1), date(2026, 10, 1)):
        rollup.roll_up(month)
    return log


def get(client, path: str, key: str, **params):
    params = {"customer_id": GLOBAL, "api_key": key, **params}
    return client.get(f"/r51/{path}", params)


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def parsed(report_class, content: bytes):
    """celus-nigiri's reading of a report: the report (errors, warnings, header) and its
    records, every value of every month."""
    report = report_class(io.BytesIO(content))
    records = list(report.read_report(*report.fd_to_dicts(io.BytesIO(content))))
    return report, records


def test_the_item_report_totals_equal_the_recount_of_the_log(client, counted, key):
    response = get(client, "reports/ir", key, begin_date="2026-09", end_date="2026-10",
                   attributes_to_show="Access_Type|YOP")
    assert response.status_code == 200 and response.streaming
    content = body(response)
    report, records = parsed(Counter51IRReport, content)
    assert report.errors == [] and report.warnings == []
    got: Counter = Counter()
    for record in records:
        ibi = record.item_ids["Proprietary"].split(":", 1)[1]
        got[ibi, record.start.strftime("%Y-%m"), record.dimension_data["Access_Type"].lower(),
            record.metric] += record.value
    expected = recount(counted)
    assert got == +expected
    # The log holds all four: robots, double clicks, open and controlled accesses.
    assert {a for _i, _m, a, _t in expected} == {"open", "controlled"}
    assert len(counted) - sum(v for k, v in expected.items()
                              if k[3] == "Total_Item_Investigations") > 20
    years = {r.dimension_data["YOP"] for r in records}
    types = {r.dimension_data["Data_Type"] for r in records}
    assert years == {"2021", "2024", "0001"}
    assert types == {"Thesis_or_Dissertation", "Article", "Unspecified"}


def test_the_platform_report_sums_the_items(client, counted, key):
    response = get(client, "reports/pr", key, begin_date="2026-09-01", end_date="2026-10-31",
                   attributes_to_show="Access_Method")
    report, records = parsed(Counter51PRReport, response.content)
    assert response.status_code == 200 and report.errors == []
    got = Counter()
    for record in records:
        got[record.start.strftime("%Y-%m"), record.metric] += record.value
    expected = Counter()
    for (_ibi, month, _access, metric), n in recount(counted).items():
        expected[month, metric] += n
    for month, n in recount_searches(generated_searches()).items():
        expected[month, "Searches_Platform"] += n
    assert got == +expected
    assert {r.dimension_data["Access_Method"] for r in records} == {"Regular"}
    searched = {r.dimension_data["Data_Type"] for r in records if r.metric == "Searches_Platform"}
    assert searched == {"Platform"} and expected["2026-09", "Searches_Platform"] > 30


def test_searches_are_the_platform_s_own_data_type(client, counted, key):
    """Searches_Platform only under the Data_Type Platform: asked for other types or other
    metrics, none; asked for it alone, it alone; PR_P1 carries it."""
    only = json.loads(get(client, "reports/pr", key, begin_date="2026-09", end_date="2026-10",
                          metric_type="Searches_Platform").content)
    assert [a["Data_Type"] for a in only["Report_Items"][0]["Attribute_Performance"]] == [
        "Platform"]
    totals = recount_searches(generated_searches())
    assert only["Report_Items"][0]["Attribute_Performance"][0]["Performance"] == {
        "Searches_Platform": dict(sorted(totals.items()))}
    articles = json.loads(get(client, "reports/pr", key, begin_date="2026-09",
                              end_date="2026-10", data_type="Article").content)
    assert {a["Data_Type"] for a in articles["Report_Items"][0]["Attribute_Performance"]} == {
        "Article"}
    p1 = json.loads(get(client, "reports/pr_p1", key, begin_date="2026-09",
                        end_date="2026-10").content)
    platform = [a for a in p1["Report_Items"][0]["Attribute_Performance"]
                if a["Data_Type"] == "Platform"]
    assert platform == [{"Data_Type": "Platform",
                         "Performance": {"Searches_Platform": dict(sorted(totals.items()))}}]
    assert conforms(p1, "PR_P1") == [] and conforms(only, "PR") == []
    # The Item Report has no searches: asked for, an invalid filter value (3060).
    ir = json.loads(body(get(client, "reports/ir", key, begin_date="2026-09",
                             end_date="2026-10", metric_type="Searches_Platform")))
    assert 3060 in [e["Code"] for e in ir["Report_Header"]["Exceptions"]]


def test_the_site_counts_a_readers_search_once_and_no_robots(client, items, monkeypatch):
    """A search with words or a filter counts one Searches_Platform; its further pages, an
    empty search and a robot's count none. No query is kept."""
    from archive.site import views

    monkeypatch.setattr(views, "PAGE_SIZE", 1)
    make.item(title="Outra tese")  # two results for "tese": two pages
    searches = [({"q": "tese"}, FIREFOX), ({"q": "tese", "page": "2"}, FIREFOX),
                ({"creator": "Banon, Gerald"}, CHROME), ({}, FIREFOX),
                ({"sort": "newest"}, FIREFOX),
                ({"q": "tese"}, ROBOTS[0])]
    for query, agent in searches:
        assert client.get("/search", query, HTTP_USER_AGENT=agent).status_code == 200
    access_counter.flush()
    assert list(DailySearchCount.objects.values_list("n", flat=True)) == [2]
    assert DailySearchCount.objects.get().day == datetime.now(UTC).date()


@pytest.mark.parametrize(("path", "report_class", "params"), [
    ("reports/pr_p1", Counter51PRReport, {}),
    ("reports/ir_a1", Counter51IRReport, {}),
    ("reports/ir", Counter51IRReport, {"granularity": "Total",
                                       "attributes_to_show": "Access_Method"}),
    ("reports/ir", Counter51IRReport, {"include_component_details": "True",
                                       "attributes_to_show": "Access_Type|YOP"}),
    # Two metrics: the specification's PR_Performance_Other asks for at least two.
    ("reports/pr", Counter51PRReport, {"metric_type": "Unique_Item_Requests|Total_Item_Requests",
                                       "data_type": "Article"}),
])
def test_every_report_parses_with_no_error(client, counted, key, path, report_class, params):
    response = get(client, path, key, begin_date="2026-09", end_date="2026-10", **params)
    content = body(response)
    report, records = parsed(report_class, content)
    assert response.status_code == 200 and report.errors == [] and records
    assert conforms(json.loads(content), path.rsplit("/", 1)[1].upper()) == []


def test_each_item_s_files_are_its_components(client, counted, key):
    """include_component_details=True: each item's files downloaded, with their downloads as
    both component metrics, equal to the recount of the log; valid by the specification."""
    response = get(client, "reports/ir", key, begin_date="2026-09", end_date="2026-10",
                   include_component_details="True")
    report = json.loads(body(response))
    assert conforms(report, "IR") == []
    assert report["Report_Header"]["Report_Attributes"] == {"Include_Component_Details": "True"}
    got: Counter = Counter()
    data_types = set()
    for entry in report["Report_Items"]:
        item = entry["Items"][0]
        ibi = item["Item_ID"]["Proprietary"].split(":", 1)[1]
        for component in item["Components"]:
            name = component["Item"]
            assert component["Item_ID"]["Proprietary"].split(":", 1)[1] == f"{ibi}/{name}"
            assert component["Item_ID"]["URI"].endswith(f"/{ibi}/{name}")
            [attribute] = component["Attribute_Performance"]
            data_types.add(attribute["Data_Type"])
            performance = attribute["Performance"]
            assert performance["Total_Item_Investigations"] == performance["Total_Item_Requests"]
            for month, n in performance["Total_Item_Requests"].items():
                got[ibi, name, month] += n
    expected = recount_files(counted)
    assert got == +expected and {name for _ibi, name, _m in expected} == {"a.pdf", "dados.csv"}
    assert data_types == {"Thesis_or_Dissertation", "Article", "Unspecified"}
    # Asked for requests' uniques only, or not asked: no components.
    unique = json.loads(body(get(client, "reports/ir", key, begin_date="2026-09",
                                 end_date="2026-10", include_component_details="True",
                                 metric_type="Unique_Item_Requests")))
    plain = json.loads(body(get(client, "reports/ir", key, begin_date="2026-09",
                                end_date="2026-10")))
    for found in (unique, plain):
        assert not any("Components" in e["Items"][0] for e in found["Report_Items"])
    # Totals: one sum under the first month.
    totals = json.loads(body(get(client, "reports/ir", key, begin_date="2026-09",
                                 end_date="2026-10", include_component_details="True",
                                 granularity="Totals")))
    assert conforms(totals, "IR") == []
    summed = Counter()
    for entry in totals["Report_Items"]:
        for component in entry["Items"][0]["Components"]:
            counts = component["Attribute_Performance"][0]["Performance"]["Total_Item_Requests"]
            assert list(counts) == ["2026-09"]
            summed[component["Item"]] += counts["2026-09"]
    by_name: Counter = Counter()
    for (_ibi, name, _month), n in expected.items():
        by_name[name] += n
    assert summed == by_name


def test_the_standard_views_keep_to_their_filters(client, counted, key):
    a1 = body(get(client, "reports/ir_a1", key, begin_date="2026-09", end_date="2026-10"))
    _report, records = parsed(Counter51IRReport, a1)
    assert {r.metric for r in records} == {"Total_Item_Requests", "Unique_Item_Requests"}
    assert {r.item for r in records} == {"An article"}  # the one Article


def test_no_usage_is_said_with_3030(client, items, key):
    rollup.roll_up(date(2026, 9, 1))
    response = get(client, "reports/ir", key, begin_date="2026-09", end_date="2026-09")
    report, records = parsed(Counter51IRReport, body(response))
    assert response.status_code == 200 and records == []
    assert [e["Code"] for e in report.header["Exceptions"]] == [3030]


# -- Exceptions ---------------------------------------------------------------------------------

def exception_of(response) -> tuple[int, int]:
    document = response.json()
    return response.status_code, document["Code"]


@pytest.mark.parametrize(("params", "expected"), [
    ({"begin_date": "2030-01", "end_date": "2030-02"}, (400, 3020)),  # the future
    ({"begin_date": "2026-13", "end_date": "2026-12"}, (400, 3020)),  # malformed
    ({"begin_date": "yesterday", "end_date": "2026-10"}, (400, 3020)),
    ({"begin_date": "2026-10", "end_date": "2026-09"}, (400, 3020)),  # backwards
    ({"begin_date": "2026-09"}, (400, 1030)),  # no end_date
    ({"begin_date": "2026-09", "end_date": "2026-10", "customer_id": ""}, (400, 1030)),
    ({"begin_date": "2026-09", "end_date": "2026-10", "customer_id": "other"}, (403, 2010)),
    ({"begin_date": "2026-09", "end_date": "2026-10", "api_key": ""}, (401, 2020)),
    ({"begin_date": "2026-09", "end_date": "2026-10", "api_key": "guessed"}, (401, 2020)),
])
def test_a_refused_request_is_one_exception_with_its_status(client, key, params, expected):
    assert exception_of(get(client, "reports/ir", key, **params)) == expected


def test_an_unknown_report_is_404_with_an_exception(client, key):
    assert exception_of(get(client, "reports/tr_x9", key, begin_date="2026-09",
                            end_date="2026-10")) == (404, 3000)


@pytest.mark.parametrize(("params", "code"), [
    ({"data_type": "Bogus"}, 3060), ({"metric_type": "Searches_Federated"}, 3060),
    ({"access_type": "Free"}, 3060), ({"yop": "20x1"}, 3060),
    ({"attributes_to_show": "Authors"}, 3062), ({"granularity": "Week"}, 3062),
    ({"include_component_details": "Yes"}, 3062), ({"colour": "blue"}, 3050),
    ({"include_parent_details": "Maybe"}, 3062),
])
def test_an_unsupported_filter_or_attribute_is_said_in_the_header(client, counted, key,
                                                                    params, code):
    response = get(client, "reports/ir", key, begin_date="2026-09", end_date="2026-10",
                   **params)
    report, records = parsed(Counter51IRReport, body(response))
    assert response.status_code == 200 and records  # served without it
    assert code in [e["Code"] for e in report.header["Exceptions"]]


def test_a_month_not_processed_yet_is_said_with_3031(client, counted, key, settings):
    response = get(client, "reports/pr", key, begin_date="2026-09", end_date="2026-11")
    document = response.json()
    assert response.status_code == 200
    assert [e["Code"] for e in document["Report_Header"]["Exceptions"]] == [3031]
    assert document["Report_Header"]["Report_Filters"]["End_Date"] == "2026-11-30"


# -- API keys -----------------------------------------------------------------------------------

def test_status_is_public_and_the_lists_need_a_key(client, counted, key):
    status = client.get("/r51/status")
    assert status.status_code == 200 and status.json()[0]["Service_Active"] is True
    assert client.get("/r51/reports").status_code == 401
    listed = client.get("/r51/reports", {"api_key": key}).json()
    assert {r["Report_ID"] for r in listed} == {"PR", "PR_P1", "IR", "IR_A1"}
    assert {(r["First_Month_Available"], r["Last_Month_Available"]) for r in listed} == {
        ("2026-09", "2026-10")}
    assert client.get("/r51/members", {"api_key": key}).json() == [
        {"Customer_ID": "ufx", "Institution_Name": "Universidade X"}]


def test_a_revoked_key_is_refused_at_once(client, counted, key):
    assert get(client, "reports/pr", key, begin_date="2026-09",
               end_date="2026-10").status_code == 200
    customer = CounterCustomer.objects.get(customer_id="ufx")
    assert services.revoke_keys(customer.api_keys.all()) == 1
    assert exception_of(get(client, "reports/pr", key, begin_date="2026-09",
                            end_date="2026-10")) == (401, 2020)


def test_the_customers_own_id_has_no_attributed_usage(client, counted, key):
    document = get(client, "reports/pr", key, customer_id="ufx", begin_date="2026-09",
                   end_date="2026-10").json()
    assert document["Report_Items"] == []
    assert document["Report_Header"]["Institution_Name"] == "Universidade X"
    assert [e["Code"] for e in document["Report_Header"]["Exceptions"]] == [0, 3030]


def test_librarians_issue_and_revoke_keys_in_the_admin(librarian_client):
    customer = CounterCustomer.objects.create(customer_id="ufy", name="Universidade Y")
    response = librarian_client.post(
        "/admin/archive/countercustomer/",
        {"action": "issue_key", "_selected_action": [customer.pk]}, follow=True, secure=True)
    shown = [str(m) for m in response.context["messages"]]
    issued = shown[0].rsplit(": ", 1)[1]
    assert librarian_client.get("/r51/members", {"api_key": issued}).status_code == 200
    key = customer.api_keys.get()
    assert key.key_hash != issued and issued.startswith(key.prefix)
    librarian_client.post("/admin/archive/counterapikey/",
                          {"action": "revoke", "_selected_action": [key.pk]}, secure=True)
    assert librarian_client.get("/r51/members", {"api_key": issued}).status_code == 401


# -- What is counted where ----------------------------------------------------------------------

def test_the_landing_page_and_exports_are_investigations_the_file_a_request(client, items):
    thesis = items["thesis"]
    agent = {"HTTP_USER_AGENT": FIREFOX}
    assert client.get(f"/items/{thesis.ibi}", **agent).status_code == 200
    assert client.get(f"/items/{thesis.ibi}/metadata/bibtex", **agent).status_code == 200
    assert client.get(f"/col/{thesis.ibi}/doc/a.pdf", **agent).status_code == 200
    kinds = {(row.kind, row.access_type): (row.n, row.unique_investigations, row.unique_requests)
             for row in DailyAccessCount.objects.filter(item=thesis)}
    assert kinds == {("investigation", "open"): (2, 1, 0), ("download", "open"): (1, 0, 1)}
    # The file downloaded, as its item's component (the landing page and export are none).
    assert list(DailyFileCount.objects.values_list("item", "name", "access_type", "n")) == [
        (thesis.pk, "a.pdf", "open", 1)]


def test_a_controlled_file_is_counted_controlled(client, items):
    article = items["article"]
    assert client.get(f"/items/{article.ibi}", HTTP_USER_AGENT=FIREFOX).status_code == 200
    assert set(DailyAccessCount.objects.filter(item=article).values_list(
        "kind", "access_type")) == {("investigation", "controlled")}


def test_no_address_is_stored(client, items):
    client.get(f"/items/{items['thesis'].ibi}", HTTP_USER_AGENT=FIREFOX,
               REMOTE_ADDR="198.51.100.23")
    for row in DailyAccessCount.objects.values():
        assert "198.51.100.23" not in repr(row)


def test_the_reports_and_lists_conform_to_the_api_specification(client, counted, key):
    for path, params, schema in (
            ("reports/ir", {"attributes_to_show": "Access_Type|YOP|Access_Method",
                            "include_parent_details": "True"}, "IR"),
            ("reports/ir", {"data_type": "Thesis_or_Dissertation", "yop": "2020-2022",
                            "access_type": "Open", "metric_type": "Total_Item_Requests"}, "IR"),
            ("reports/pr", {"attributes_to_show": "Access_Method"}, "PR"),
            ("reports/pr", {"begin_date": "2026-09", "end_date": "2026-12"}, "PR")):
        document = json.loads(body(get(client, path, key, **{
            "begin_date": "2026-09", "end_date": "2026-10", **params})))
        assert conforms(document, schema) == [], (path, params)
    assert conforms(client.get("/r51/status").json()[0], "Status") == []
    assert conforms(client.get("/r51/members", {"api_key": key}).json()[0], "Member") == []
    for entry in client.get("/r51/reports", {"api_key": key}).json():
        assert conforms(entry, "Report") == []
    refused = get(client, "reports/ir", key, begin_date="2026-13", end_date="2026-10").json()
    assert conforms(refused, "Exception_3020") == []


def test_a_month_of_searches_alone_is_rolled_up_too(client, key):
    """A month with searches and no access is due like any other: its Searches_Platform is
    reported, not 'not ready' forever."""
    access_counter.count_search(FIREFOX, datetime(2026, 9, 14, 12, tzinfo=UTC))
    assert rollup.months_due(date(2026, 11, 29)) == [date(2026, 9, 1), date(2026, 10, 1)]
    for month in rollup.months_due(date(2026, 11, 29)):
        rollup.roll_up(month)
    report = json.loads(get(client, "reports/pr", key, begin_date="2026-09",
                            end_date="2026-09").content)
    assert report["Report_Items"][0]["Attribute_Performance"] == [
        {"Data_Type": "Platform", "Performance": {"Searches_Platform": {"2026-09": 1}}}]
