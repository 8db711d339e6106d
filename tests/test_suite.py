"""The suite's own rules (tests/conftest.py, tests/factories.py): one toolkit, no fixture of
pytest-django or of conftest defined again, the minting grid set once."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
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
    conftest = fixtures(ast.parse((TESTS / "conftest.py").read_text()))
    assert conftest.isdisjoint(DJANGO_FIXTURES)
    for path in modules():
        again = fixtures(ast.parse(path.read_text())) & (DJANGO_FIXTURES | conftest)
        assert not again, f"{path.name} defines {sorted(again)} again"


def test_no_module_has_a_deposit_helper_of_its_own():
    """Items, files, deposits over the API, the admin or a live server: tests/factories.py."""
    for path in modules():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("test_"):
                calls = {ast.unparse(call.func) for call in ast.walk(node)
                         if isinstance(call, ast.Call)}
                assert "services.item_deposit" not in calls, (
                    f"{path.name}: {node.name} deposits; use tests/factories.py")
                assert not node.name.startswith(("deposit", "api_deposit", "raw_deposit")), (
                    f"{path.name}: {node.name}; use tests/factories.py")


def test_the_minting_grid_is_set_once():
    for path in modules():
        if path.name not in OWN_GRID:
            assert "IBI_GRANULARITY" not in path.read_text(), path.name


# -- One of each in archive/ (#40, 4) ----------------------------------------------------------

APP = TESTS.parent / "archive"
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
    for node in ast.walk(ast.parse(source)):
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
    tree = ast.parse(source)
    names: dict[str, str] = {}  # local name → full name
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = []
    for node in ast.walk(tree):
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
    return [(str(path.relative_to(TESTS.parent)), path.read_text())
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
    assert all(backoff_formulas((TESTS.parent / home).read_text()) for home in BACKOFF_HOME)


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
    assert calls_of((TESTS.parent / THREAD_HOME).read_text(), THREADS) == ["threading.Thread"]
