"""The suite's own rules (tests/conftest.py, tests/factories.py): one toolkit, no fixture of
pytest-django or of conftest defined again, the minting grid set once, every docstring example
run; and the app's own: every model in archive/models/."""
from __future__ import annotations

import ast
from pathlib import Path

from django.apps import AppConfig, apps
from django.db import models
from django.test.utils import isolate_apps

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
