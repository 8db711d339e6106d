"""The suite's own rules (tests/conftest.py, tests/factories.py): one toolkit, no fixture of
pytest-django or of conftest defined again, the minting grid set once, every docstring example
run, stand-ins that stop at once; and the app's own: every model in archive/models/."""
from __future__ import annotations

import ast
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from django.apps import AppConfig, apps
from django.db import models
from django.test.utils import isolate_apps

from tests import factories as make

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
# pytest-django's fixtures, and the conftest's own.
DJANGO_FIXTURES = {"client", "async_client", "admin_client", "admin_user", "rf", "async_rf",
                   "settings", "db", "transactional_db", "django_db_setup", "django_db_blocker",
                   "django_user_model", "django_username_field", "live_server", "mailoutbox",
                   "django_assert_num_queries", "django_assert_max_num_queries",
                   "django_capture_on_commit_callbacks", "django_db_reset_sequences",
                   "django_db_serialized_rollback", "django_mail_dnsname",
                   "django_mail_patch_dns"}
# Tests of minting itself choose their grid; everything else runs on pyproject.toml's.
OWN_GRID = {"test_minting.py", "test_ibi_command.py", "test_settings.py", "test_suite.py"}


def fixtures(tree: ast.Module) -> set[str]:
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                "fixture" in ast.unparse(decorator) for decorator in node.decorator_list):
            found.add(node.name)
    return found


def modules() -> list[Path]:
    return sorted(TESTS.glob("test_*.py"))


def test_no_module_defines_a_fixture_of_pytest_django_or_of_conftest_again():
    conftest = fixtures(make.syntax_tree((TESTS / "conftest.py").read_text()))
    assert conftest.isdisjoint(DJANGO_FIXTURES)
    for path in modules():
        again = fixtures(make.syntax_tree(path.read_text())) & (DJANGO_FIXTURES | conftest)
        assert not again, f"{path.name} defines {sorted(again)} again"


def test_no_module_has_a_deposit_helper_of_its_own():
    """Items, files, deposits over the API, the admin or a live server: tests/factories.py."""
    for path in modules():
        for node in make.syntax_tree(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("test_"):
                calls = {ast.unparse(call.func) for call in ast.walk(node)
                         if isinstance(call, ast.Call)}
                assert "services.item_deposit" not in calls, (
                    f"{path.name}: {node.name} deposits; use tests/factories.py")
                assert not node.name.startswith(("deposit", "api_deposit", "raw_deposit")), (
                    f"{path.name}: {node.name}; use tests/factories.py")


def test_no_module_has_an_inclusion_helper_of_its_own():
    """An Archive included at the resolver in process: tests/factories.py `include`."""
    for path in modules():
        for node in make.syntax_tree(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("test_"):
                includes = [call for call in ast.walk(node) if isinstance(call, ast.Call)
                            and ast.unparse(call.func) == "RegisteredArchive.objects.create"
                            and any(k.arg == "included" and ast.unparse(k.value) == "True"
                                    for k in call.keywords)]
                assert not includes, (
                    f"{path.name}: {node.name} includes an Archive; use make.include")


def test_the_minting_grid_is_set_once():
    for path in modules():
        if path.name not in OWN_GRID:
            assert "IBI_GRANULARITY" not in path.read_text(), path.name


# -- One of each in archive/ (#40, 4) ----------------------------------------------------------

APP = ROOT / "archive"
# The one backoff (min(first * 2 ** (attempt - 1), longest)) is archive/db/leases.py's.
BACKOFF_HOME = {"archive/db/leases.py"}
# The one outgoing HTTP client, and the resolver's fan-out (aiohttp, tuned for latency).
CLIENT_HOMES = {"archive/protocol/outgoing.py", "archive/protocol/client.py"}
# The one way to run work beside requests: archive/runtime/threads.py `Helper`.
THREAD_HOME = "archive/runtime/threads.py"
THREADS = {"threading.Thread", "threading.Timer", "_thread.start_new_thread",
           "concurrent.futures.ThreadPoolExecutor"}
CLIENTS = {"httpx.Client", "httpx.AsyncClient", "httpx.HTTPTransport", "httpx.get",
           "httpx.post", "httpx.put", "httpx.patch", "httpx.delete", "httpx.head",
           "httpx.request", "httpx.stream", "requests.Session", "requests.session",
           "requests.get", "requests.post", "requests.request", "urllib3.PoolManager",
           "urllib3.HTTPConnectionPool", "urllib3.request", "urllib.request.urlopen",
           "urllib.request.build_opener", "http.client.HTTPConnection",
           "http.client.HTTPSConnection", "aiohttp.ClientSession", "aiohttp.request"}


def backoff_formulas(source: str) -> list[str]:
    """Every power of two (2 ** n, 2.0 ** n, pow(2, n)) and shift of one (1 << n): the shape of
    an exponential backoff."""
    found = []
    for node in make.syntax_nodes(source):
        if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant) and (
                (isinstance(node.op, ast.Pow) and node.left.value == 2)
                or (isinstance(node.op, ast.LShift) and node.left.value == 1)):
            found.append(ast.unparse(node))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in {"pow", "math.pow"} \
                and node.args and ast.unparse(node.args[0]) in {"2", "2.0"}:
            found.append(ast.unparse(node))
    return found


def calls_of(source: str, wanted: set[str]) -> list[str]:
    """Every call of one of `wanted` (full dotted names) in `source`, by its full name whatever
    the import: `httpx.Client(...)`, `from httpx import Client`, `import requests as r;
    r.Session()`."""
    nodes = make.syntax_nodes(source)
    names: dict[str, str] = {}  # local name → full name
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = []
    for node in nodes:
        if isinstance(node, ast.Call):
            head, _, rest = ast.unparse(node.func).partition(".")
            full = names.get(head, head) + (f".{rest}" if rest else "")
            if full in wanted:
                found.append(full)
    return found


def http_clients(source: str) -> list[str]:
    """Every outgoing HTTP client made (or a one-off request, which makes one)."""
    return calls_of(source, CLIENTS)


def app_sources() -> list[tuple[str, str]]:
    return [(str(path.relative_to(ROOT)), path.read_text())
            for path in sorted(APP.rglob("*.py")) if "migrations" not in path.parts]


def test_the_guards_find_what_they_guard_against():
    assert backoff_formulas("wait = min(first * 2 ** (n - 1), longest)") == ["2 ** (n - 1)"]
    assert backoff_formulas("a = 2.0 ** n; b = pow(2, n); c = 1 << n; d = n ** 2") == [
        "2.0 ** n", "pow(2, n)", "1 << n"]
    assert http_clients("import httpx\nhttpx.Client(timeout=1)") == ["httpx.Client"]
    assert http_clients("from requests import Session as S\nS()") == ["requests.Session"]
    assert http_clients("import urllib3 as u\nu.PoolManager()") == ["urllib3.PoolManager"]
    assert http_clients("import urllib.request\nurllib.request.urlopen('x')") == [
        "urllib.request.urlopen"]
    assert http_clients("from archive.protocol import outgoing\noutgoing.client()") == []
    assert calls_of("from threading import Thread\nThread(target=f)", THREADS) == [
        "threading.Thread"]


def test_one_backoff_formula_in_archive():
    """A queue's backoff is archive/db/leases.py `backoff`, never a formula of its own."""
    found = {path: formulas for path, source in app_sources()
             if path not in BACKOFF_HOME and (formulas := backoff_formulas(source))}
    assert found == {}
    assert all(backoff_formulas((ROOT / home).read_text()) for home in BACKOFF_HOME)


def test_one_outgoing_http_client_in_archive():
    """Outgoing HTTP goes through archive/protocol/outgoing.py (the resolver's fan-out is
    protocol/client.py's): no other module makes a client."""
    found = {path: clients for path, source in app_sources()
             if path not in CLIENT_HOMES and (clients := http_clients(source))}
    assert found == {}
    assert http_clients((APP / "protocol" / "outgoing.py").read_text()) == ["httpx.Client"]


def test_one_helper_thread_in_archive():
    """A thread beside the requests is archive/runtime/threads.py's `Helper`."""
    found = {path: made for path, source in app_sources()
             if path != THREAD_HOME and (made := calls_of(source, THREADS))}
    assert found == {}
    assert calls_of((ROOT / THREAD_HOME).read_text(), THREADS) == ["threading.Thread"]


def test_every_module_that_shows_a_docstring_example_has_it_run():
    """A module of archive/ whose source shows `>>>` is one tests/test_docstrings.py finds and
    runs (issue #40, 5), and no example is skipped: a worked example is either run or gone."""
    from tests.test_docstrings import MODULES, NOT_DOCUMENTATION

    package = ROOT / "archive"
    shown = set()
    for path in package.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        text = path.read_text()
        if ">>>" in text and not name.startswith(NOT_DOCUMENTATION):
            shown.add(name)
        assert "doctest: +SKIP" not in text, f"{name} skips a docstring example"
    assert len(shown) >= 40  # the walk sees the package (44 modules on 2026-11-28)
    assert shown <= set(MODULES), f"examples never run in {sorted(shown - set(MODULES))}"


def models_outside_the_package(app: AppConfig) -> list[str]:
    """The app's models with a table of their own defined anywhere but archive/models/."""
    return sorted(f"{model.__module__}.{model.__name__}" for model in app.get_models()
                  if not model._meta.proxy and not model.__module__.startswith("archive.models."))


def test_every_model_is_defined_in_archive_models():
    assert len(list(apps.get_app_config("archive").get_models())) > 15
    assert models_outside_the_package(apps.get_app_config("archive")) == []


@isolate_apps("archive")
def test_a_model_defined_elsewhere_is_found():
    class Stray(models.Model):  # noqa: DJ008 (a model of the test alone)
        class Meta:
            app_label = "archive"

    class Alias(Stray):  # noqa: DJ008
        class Meta:
            app_label = "archive"
            proxy = True

    assert models_outside_the_package(Stray._meta.apps.get_app_config("archive")) == [
        "tests.test_suite.Stray"]


# -- One refusal family (archive/refusals.py; #40, 2) ------------------------------------------
# import-linter forbids DRF outside the edges (pyproject.toml); what it cannot say, since it
# forbids whole external packages only, is checked here: no module outside the edges names an
# HTTP response of Django, every exception carrying a status is a Refusal, and what a services
# module lets out of a function is a Refusal.


def edges() -> tuple[str, ...]:
    """The edges and the web layer they share, as pyproject.toml's contract names them."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"]
    edge = next(c for c in contracts if c["name"].startswith("Edges"))
    return (*edge["forbidden_modules"], "archive.migrations")


def module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def outside_the_edges(root: Path) -> list[Path]:
    return [path for path in sorted((root / "archive").rglob("*.py"))
            if not module_name(path, root).startswith(tuple(f"{e}." for e in edges()))
            and module_name(path, root) not in edges()]


def http_responses_named(root: Path) -> list[str]:
    """Imports, outside the edges, of what answers HTTP: a name of django.http.response
    (HttpResponse and kin, Http404), django.shortcuts, or anything of DRF; and a `raise` of
    one of those names however it was reached (`django.http.Http404`)."""
    import django.http.response

    answers = {name for name, value in vars(django.http.response).items()
               if isinstance(value, type)
               and issubclass(value, Exception | django.http.HttpResponseBase)}
    found = []
    for path in outside_the_edges(root):
        where = path.relative_to(root)
        for node in make.syntax_nodes(path.read_text()):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                module = node.module or ""
                names = {alias.name for alias in node.names}
                if module in ("django.http", "django.http.response") and names & answers \
                        or module.startswith(("django.shortcuts", "rest_framework")):
                    found.append(f"{where}:{node.lineno}: from {module} import "
                                 f"{', '.join(sorted(names))}")
            elif isinstance(node, ast.Import):
                found += [f"{where}:{node.lineno}: import {alias.name}" for alias in node.names
                          if alias.name.startswith(("django.http.response", "django.shortcuts",
                                                    "rest_framework"))]
            elif isinstance(node, ast.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if ast.unparse(raised).rpartition(".")[2] in answers:
                    found.append(f"{where}:{node.lineno}: raise {ast.unparse(raised)}")
    return found


def test_no_module_outside_the_edges_names_an_http_response():
    assert http_responses_named(ROOT) == []


def test_the_http_response_check_finds_what_it_looks_for(tmp_path):
    import shutil

    shutil.copytree(APP, tmp_path / "archive", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    services = tmp_path / "archive" / "deposit" / "services.py"
    services.write_text(services.read_text() + "\nfrom django.http import Http404  # noqa\n")
    pending = tmp_path / "archive" / "deposit" / "pending.py"
    pending.write_text(pending.read_text() + "\nimport rest_framework.exceptions  # noqa\n")
    selectors = tmp_path / "archive" / "deposit" / "selectors.py"
    selectors.write_text(selectors.read_text() + "\n\ndef gone():\n"
                         "    import django.http\n\n    raise django.http.Http404\n")
    found = http_responses_named(tmp_path)
    assert len(found) == 3
    assert "import rest_framework.exceptions" in found[0]
    assert "archive/deposit/selectors.py" in found[1] and "raise django.http.Http404" in found[1]
    assert "archive/deposit/services.py" in found[2] and "Http404" in found[2]


def statuses_outside_the_family(classes) -> list[str]:
    from archive.refusals import Refusal

    return [f"{cls.__module__}.{cls.__qualname__}" for cls in classes
            if cls.__module__.startswith("archive.") and "status" in dir(cls)
            and not issubclass(cls, Refusal)]


def exception_classes() -> list[type]:
    import importlib
    import pkgutil

    import archive

    for info in pkgutil.walk_packages(archive.__path__, "archive."):
        if ".migrations" not in info.name:
            importlib.import_module(info.name)
    found, todo = [], [Exception]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


def test_every_exception_that_carries_an_http_status_is_a_refusal():
    classes = exception_classes()
    assert len([c for c in classes if c.__module__.startswith("archive.")]) > 40
    assert statuses_outside_the_family(classes) == []
    teapot = type("Teapot", (Exception,), {"status": 418, "__module__": "archive.deposit.x"})
    assert statuses_outside_the_family([teapot]) == ["archive.deposit.x.Teapot"]


def _resolved(namespace: dict, node: ast.expr):
    import builtins

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    found = namespace.get(node.id, getattr(builtins, node.id, None))
    for part in reversed(parts):
        found = getattr(found, part, None)
    return found


def escaping_non_refusals(source: str, namespace: dict) -> list[str]:
    """Each `raise` of a services module whose exception leaves its function and is no Refusal.

    Caught around the raise in the same function, it never leaves; an exception class the
    module itself catches somewhere (a signal between its own functions, access's Revoked)
    stays inside too. Anything else reaches an edge, which answers a Refusal only."""
    from archive.refusals import Refusal

    tree = make.syntax_tree(source)
    caught_in_module = {_resolved(namespace, t) for handler in make.syntax_nodes(source)
                        if isinstance(handler, ast.ExceptHandler) and handler.type is not None
                        for t in (handler.type.elts if isinstance(handler.type, ast.Tuple)
                                  else [handler.type])}
    found = []

    def visit(node: ast.AST, around: list[type]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            around = []
        if isinstance(node, ast.Try):
            here = []
            for handler in node.handlers:
                types = (handler.type.elts if isinstance(handler.type, ast.Tuple)
                         else [handler.type]) if handler.type is not None else []
                here += [_resolved(namespace, t) for t in types] or [BaseException]
            for child in node.body:
                visit(child, around + [c for c in here if isinstance(c, type)])
            for child in (*node.handlers, *node.orelse, *node.finalbody):
                visit(child, around)
            return
        if isinstance(node, ast.Raise) and node.exc is not None:
            raised = _resolved(namespace, node.exc.func if isinstance(node.exc, ast.Call)
                               else node.exc)
            if not isinstance(raised, type):
                found.append(f"{node.lineno}: raise {ast.unparse(node.exc)} (not a class)")
            elif not (issubclass(raised, Refusal) or raised in caught_in_module
                      or any(issubclass(raised, c) for c in around)):
                found.append(f"{node.lineno}: raise {raised.__name__}")
        for child in ast.iter_child_nodes(node):
            visit(child, around)

    visit(tree, [])
    return found


def test_services_let_out_refusals_only():
    import importlib

    modules = sorted(APP.rglob("services.py"))
    assert len(modules) >= 3
    for path in modules:
        module = importlib.import_module(module_name(path, ROOT))
        assert escaping_non_refusals(path.read_text(), vars(module)) == [], path


def test_the_services_check_finds_what_it_looks_for():
    from archive.deposit import services

    source = (APP / "deposit" / "services.py").read_text() + (
        "\n\ndef half_done():\n    raise RuntimeError('a 500')\n"
        "\n\ndef caught():\n    try:\n        raise KeyError('x')\n    except LookupError:\n"
        "        raise Conflict('a 409') from None\n")
    assert [line.split(": ", 1)[1] for line in escaping_non_refusals(source, vars(services))] \
        == ["raise RuntimeError"]


# -- A transactional test's clean-up (tests/conftest.py `_put_back_rather_than_flush`) --------

def _rows(connection) -> dict[str, int]:
    with connection.cursor() as cursor:
        return {table: cursor.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
                for table in connection.introspection.table_names(cursor)}


def test_putting_the_database_back_leaves_the_rows_a_flush_leaves(transactional_db):
    """On SQLite a transactional test ends with the database put back as migrated, not with
    Django's flush: both leave the same rows in every table (the content types, permissions,
    archive service, CNPq table … post_migrate makes), whatever the test wrote."""
    from django.core.management import call_command
    from django.db import connection

    from tests.servers import restore_migrated

    make.item(("a.pdf", b"%PDF-1.4"), title="Written by the test")
    put_back_here = restore_migrated(connection)
    assert put_back_here == (connection.vendor == "sqlite")
    if not put_back_here:
        return  # PostgreSQL: its transactional tests end with the flush itself
    put_back = _rows(connection)
    make.item(("b.pdf", b"%PDF-1.4"), title="Written again")
    call_command("flush", interactive=False, verbosity=0)
    assert _rows(connection) == put_back


def test_no_module_makes_a_server_of_socketserver_s_own_loop():
    """A server in a thread of the test process is a `PromptHTTPServer` or `PromptWSGIServer`
    (tests/servers.py), which stops at once: socketserver's own loop waits up to half a second;
    a server class of a module's own takes `StopsAtOnce` first."""
    slow = {"ThreadingHTTPServer", "HTTPServer", "ThreadingTCPServer", "TCPServer",
            "ThreadedWSGIServer", "WSGIServer", "make_server"}
    for path in sorted(TESTS.glob("*.py")):
        nodes = make.syntax_nodes(path.read_text())
        made = {ast.unparse(node.func).rsplit(".", 1)[-1] for node in nodes
                if isinstance(node, ast.Call)} & slow
        assert not made, f"{path.name} makes a {sorted(made)}: use tests.servers.PromptHTTPServer"
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases]
                assert not slow & set(bases) or bases[0] == "StopsAtOnce", (
                    f"{path.name}: {node.name} serves with socketserver's loop; "
                    "take tests.servers.StopsAtOnce first")


def _hello(environ, start_response):
    start_response("204 No Content", [])
    return []


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("kind", ["http.server", "django"])
def test_a_prompt_server_stops_without_waiting_for_its_loop_to_look(kind):
    """Its loop is served with an hour between looks, as socketserver's would wait for: the
    shutdown ends it all the same, the request before it answered."""
    from django.core.servers.basehttp import WSGIRequestHandler

    from tests.servers import PromptHTTPServer, PromptWSGIServer

    if kind == "django":
        server = PromptWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
        server.set_app(_hello)
    else:
        server = PromptHTTPServer(("127.0.0.1", 0), _Hello)
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 3600},
                               daemon=True)
    serving.start()
    assert httpx.get(f"http://127.0.0.1:{server.server_port}/", timeout=30).status_code == 204
    stopping = threading.Thread(target=server.shutdown, daemon=True)
    stopping.start()
    stopping.join(10)
    serving.join(10)
    server.server_close()
    assert not stopping.is_alive() and not serving.is_alive()


def test_a_live_site_serves_with_a_prompt_server(live_site):
    from tests.servers import StopsAtOnce

    assert isinstance(live_site.thread.httpd, StopsAtOnce)
