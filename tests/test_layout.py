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

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "archive"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
TOP_LEVEL = {"__init__.py", "apps.py", "checks.py", "ibi.py", "models.py", "urls.py"}


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


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
    copies = tmp_path / "archive" / "api" / "copies.py"
    copies.write_text(copies.read_text() + "\n\ndef borrowed():\n"
                      "    from ..site import views\n\n    return views\n")
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
    return sorted(p.name for p in APP.iterdir() if (p / "__init__.py").exists()
                  and p.name not in {"migrations", "management", "templatetags"})


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


def test_the_architecture_page_names_only_modules_that_exist():
    page = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"\b(?:archive|ibirepo)/[\w/]+\.py\b", page))
    assert len(named) > 20
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []
