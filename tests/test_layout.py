"""The layout of archive/ (docs/architecture.md): packages by concern, no import circles.

The rules are import-linter contracts in pyproject.toml ([tool.importlinter]); `make lint`
runs them too. These tests run them, show that a new circle breaks them, and check what the
contracts cannot: the top level of archive/, the packages' public faces, and the architecture
page naming only modules that exist.
"""
from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp

from tests import factories as make

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "archive"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
TOP_LEVEL = {"__init__.py", "apps.py", "checks.py", "ibi.py", "refusals.py", "urls.py"}


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def test_a_new_circle_between_packages_breaks_them(tmp_path):
    """deposit mints through identifiers; identifiers reaching back into deposit, even in a
    function body, is a circle."""
    shutil.copytree(APP, tmp_path / "archive", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    minting = tmp_path / "archive" / "identifiers" / "minting.py"
    minting.write_text(minting.read_text() + "\n\ndef circle():\n"
                       "    from ..deposit import services\n\n    return services\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "1 broken" in result.stdout
    assert ".identifiers -> .deposit" in result.stdout


def test_an_edge_importing_another_edge_breaks_them(tmp_path):
    """The API reaching into the public site for something both need: that thing belongs in
    a service package, and the independence contract says so."""
    shutil.copytree(APP, tmp_path / "archive", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    copies = tmp_path / "archive" / "api" / "views" / "copies.py"
    copies.write_text(copies.read_text() + "\n\ndef borrowed():\n"
                      "    from ...site import views\n\n    return views\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "Edges never import one another" in result.stdout and "1 broken" in result.stdout
    assert "archive.api is not allowed to import archive.site" in result.stdout


def test_only_the_apps_own_modules_stay_at_the_top():
    assert {p.name for p in APP.glob("*.py")} == TOP_LEVEL


def test_archive_ibi_is_the_codec_itself():
    import archive.ibi
    from archive.identifiers import ibi

    assert archive.ibi is ibi
    assert str(archive.ibi.parse("8jmkd3mgp7w/3epgue5")) == "8JMKD3MGP7W/3EPGUE5"


def packages() -> list[str]:
    """The packages whose public face is a few modules; archive.models's is its names."""
    return sorted(p.name for p in APP.iterdir() if (p / "__init__.py").exists()
                  and p.name not in {"migrations", "management", "templatetags", "models"})


def test_every_package_says_what_it_is_and_names_its_public_face():
    for name in packages():
        package = importlib.import_module(f"archive.{name}")
        assert package.__doc__, name
        modules = ({p.stem for p in (APP / name).glob("*.py")}
                   | {p.parent.name for p in (APP / name).glob("*/__init__.py")}) - {"__init__"}
        assert set(package.__all__) <= modules, name


def test_other_packages_use_only_a_packages_public_face():
    graph = grimp.build_graph("archive", "ibirepo", cache_dir=None)
    public = {name: set(importlib.import_module(f"archive.{name}").__all__)
              for name in packages()}
    private_uses = []
    for importer in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(importer):
            parts = imported.split(".")
            if len(parts) < 3 or parts[1] not in public:
                continue
            if importer.split(".")[:2] != parts[:2] and parts[2] not in public[parts[1]]:
                private_uses.append(f"{importer} -> {imported}")
    assert private_uses == []


def test_the_models_are_imported_from_archive_models_alone():
    """archive/models/ is split by area for its readers; everyone else, migrations included,
    imports `archive.models`, so that a model may move between its modules freely."""
    import archive.models

    graph = grimp.build_graph("archive", "ibirepo", cache_dir=None)
    inside = [module for module in sorted(graph.modules)
              if module.startswith("archive.models.")]
    assert len(inside) > 10
    assert [f"{importer} -> {module}" for module in inside
            for importer in sorted(graph.find_modules_that_directly_import(module))
            if not importer.startswith("archive.models")] == []
    assert set(archive.models.__all__) == {name for name in dir(archive.models)
                                           if not name.startswith("_")} - {
        "annotations", *(module.rsplit(".", 1)[1] for module in inside)}


def test_the_architecture_page_names_only_modules_that_exist():
    page = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"\b(?:archive|ibirepo)/[\w/]+\.py\b", page))
    assert len(named) > 20
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []


def test_the_conformance_page_names_only_tests_and_modules_that_exist():
    """docs/conformance.md: every ``file::test`` it cites is a test of that file (a name ending
    in … stands for several), every module a module."""
    page = (ROOT / "docs" / "conformance.md").read_text()
    cited, missing, current = 0, [], None
    for match in re.finditer(r"((?:tests/)?test_\w+\.py|tests/conftest\.py)?::(\w+)(…)?", page):
        given, name, several = match.groups()
        current = (given if given.startswith("tests/") else f"tests/{given}") if given \
            else current
        if current is None or several:
            continue
        cited += 1
        if not re.search(rf"^def {name}\(", (ROOT / current).read_text(), re.M):
            missing.append(f"{current}::{name}")
    modules = set(re.findall(r"`((?:archive/)?[a-z_]+/[\w/]+\.py)`", page))
    assert cited > 80 and len(modules) > 20
    assert missing == []
    assert [m for m in sorted(modules)
            if not (ROOT / m).exists() and not (APP / m).exists()] == []


DUBLIN_CORE = {"title", "creator", "subject", "description", "publisher", "contributor", "date",
               "type", "format", "identifier", "source", "language", "relation", "coverage",
               "rights"}


def dublin_core_lists(root: Path) -> list[str]:
    """Tuples, lists, sets and dicts keyed that spell five or more Dublin Core element names,
    anywhere but where the vocabulary is written (models/dublin_core.py `DcElement`) and in
    the migrations (history)."""
    import ast

    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root.parent)
        if where.parts[1] == "migrations" or where.as_posix() == "archive/models/dublin_core.py":
            continue
        for node in make.syntax_nodes(path.read_text()):
            words = (node.keys if isinstance(node, ast.Dict)
                     else node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [])
            strings = [w.value for w in words
                       if isinstance(w, ast.Constant) and isinstance(w.value, str)]
            names = [word for word in strings if word in DUBLIN_CORE]
            # A dict keyed by another vocabulary (the DCMI terms a crosswalk reads) is not one.
            if len(names) >= 5 and (len(names) == len(strings) or not isinstance(node, ast.Dict)):
                found.append(f"{where}:{node.lineno}")
    return found


def test_the_dublin_core_elements_are_written_once():
    """archive.models.DcElement (and DC_ELEMENTS, derived from it): a page's labels, the
    oai_dc order, the DSpace crosswalk all read it."""
    assert dublin_core_lists(APP) == []


def test_a_second_list_of_dublin_core_elements_is_found(tmp_path):
    shutil.copytree(APP, tmp_path / "archive", ignore=shutil.ignore_patterns("__pycache__"))
    views = tmp_path / "archive" / "site" / "views.py"
    views.write_text(views.read_text() + '\nSHOWN = ["creator", "subject", "date", "type",'
                     ' "rights"]\n')
    assert dublin_core_lists(tmp_path / "archive") == [
        f"archive/site/views.py:{len(views.read_text().splitlines())}"]


# Underscore names their libraries document as public API: Django's Model._meta (the Options
# API) and Model._state (`adding`, `db`); lxml's etree._Element, the class of every element
# (used in annotations only).
DOCUMENTED = {"_meta", "_state", "_Element"}


def _own_private_names() -> set[str]:
    """Every `_name` archive/ defines itself: functions, classes, variables, attributes set."""
    import ast

    names = set()
    for path in APP.rglob("*.py"):
        for node in make.syntax_nodes(path.read_text()):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return {name for name in names if name.startswith("_")}


def private_uses(root: Path) -> list[str]:
    """`trans_real`, names imported with a leading underscore from outside the app, and
    `x._name` attributes the app does not define itself (DOCUMENTED aside): the private API of
    Django, DRF, drf-spectacular or any other library."""
    import ast

    own = _own_private_names()
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        where = path.relative_to(root.parent)
        if "trans_real" in text:
            found.append(f"{where}: trans_real")
        for node in make.syntax_nodes(text):
            if isinstance(node, ast.ImportFrom) and node.level == 0 \
                    and not (node.module or "").startswith("archive"):
                found += [f"{where}:{node.lineno}: from {node.module} import {alias.name}"
                          for alias in node.names if alias.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__") and node.attr not in own | DOCUMENTED:
                found.append(f"{where}:{node.lineno}: .{node.attr}")
    return found


def test_no_private_api_of_django_drf_or_drf_spectacular_anywhere_in_archive():
    assert private_uses(APP) == []


def test_the_private_api_check_finds_what_it_looks_for(tmp_path):
    shutil.copytree(APP, tmp_path / "archive", ignore=shutil.ignore_patterns("__pycache__"))
    schema = tmp_path / "archive" / "api" / "schema.py"
    schema.write_text(schema.read_text() + "\n\ndef mapped(auto_schema, target):\n"
                      "    return auto_schema._map_basic_serializer(target, 'request')\n")
    resolve = tmp_path / "archive" / "resolver" / "languages.py"
    resolve.write_text(resolve.read_text() + "\nfrom django.utils.translation.trans_real import "
                       "parse_accept_lang_header  # noqa\n")
    found = private_uses(tmp_path / "archive")
    assert any("._map_basic_serializer" in line for line in found)
    assert any("trans_real" in line for line in found)


def test_django_s_start_leaves_the_heavy_clients_to_their_first_use():
    """What builds much as it is imported is imported where it is first used, not by the
    URLconf, which every web worker and every command's system checks load: pysaml2's XML
    schemas (most of a second of CPU; archive/site/saml.py `_saml`), aiohttp (its TLS contexts;
    archive/protocol/client.py) and authlib with its JOSE and cryptography
    (archive/accounts/orcid.py)."""
    code = ("import django; django.setup(); from django.urls import get_resolver; "
            "get_resolver().url_patterns; import sys; print(sorted(m for m in sys.modules "
            "if m.startswith(('saml2.xml.schema', 'aiohttp', 'authlib', 'joserfc'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "DJANGO_SETTINGS_MODULE":
                                            "ibirepo.settings"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
