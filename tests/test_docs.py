"""The documentation (README.md, mkdocs.yml, docs/; issue #40, 7): a short README that links
into the site, every setting the code reads named in the operators' table, every file a page
names in the tree, every page in the navigation, and the site built with every warning an
error, as .ci/run builds it. The commands the pages show are tests/test_readme.py's."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_PAGE = ROOT / "docs" / "operators" / "settings.md"
# What reads the environment: Django's settings (through ibirepo/env.py's readers), gunicorn's
# configuration and hooks, and the nginx template's filler.
PYTHON_READERS = ["ibirepo/settings.py", "ibirepo/env.py", "ibirepo/gunicorn.py",
                  "deploy/gunicorn.conf.py"]
ENVIRON_CALLS = {"os.environ.get", "os.getenv", "os.environ.setdefault"}
# A path of the tree as the pages write it: archive/access/policy.py, docs/testing.md, .ci/run.
PATH = re.compile(r"(?<![\w/.])((?:archive|ibirepo|deploy|tests|bench|docs|\.ci)/[\w/.-]*[\w-])")


def variables_read(source: str) -> set[str]:
    """The names a Python module reads from the environment: the first argument of
    ibirepo/env.py's `env_…` readers and of `os.environ.get` & co., and `os.environ["…"]`."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            function = ast.unparse(node.func)
            if function.startswith("env_") or function in ENVIRON_CALLS:
                found.add(node.args[0].value)
        elif (isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ"
              and isinstance(node.slice, ast.Constant)):
            found.add(node.slice.value)
    return {name for name in found if isinstance(name, str)} - {"DJANGO_SETTINGS_MODULE"}


def nginx_variables() -> set[str]:
    """deploy/render-nginx's required variables (its `vars=` list)."""
    text = (ROOT / "deploy" / "render-nginx").read_text()
    return set(re.search(r"^vars='([^']*)'", text, re.M)[1].split())


def documented_variables() -> set[str]:
    """Every `NAME` in the first column of the operators' settings table."""
    names = set()
    for line in SETTINGS_PAGE.read_text().splitlines():
        if line.startswith("| `"):
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split(" | ")[0]))
    return names


def test_it_reads_the_variables_as_the_settings_read_them():
    source = 'A = env_int("IBI_X", env_int("OLD_X", 1, low=0, high=2), low=0, high=2)\n' \
             'B = os.environ.get("GUNICORN_Y", "1")\nC = os.environ["Z"]\nD = f(env_str)\n'
    assert variables_read(source) == {"IBI_X", "OLD_X", "GUNICORN_Y", "Z"}


def test_every_setting_the_code_reads_is_in_the_operators_settings_table():
    read = nginx_variables()
    for path in PYTHON_READERS:
        read |= variables_read((ROOT / path).read_text())
    assert {"DATABASE_URL", "IBI_HOSTNAME", "GUNICORN_BIND", "IBI_NGINX_USER"} <= read
    documented = documented_variables()
    assert sorted(read - documented) == [], "read but not in docs/operators/settings.md"
    assert sorted(documented - read) == [], "in docs/operators/settings.md but never read"


def test_the_readme_is_short_and_links_only_to_pages_that_exist():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    assert "make run" in text and "make test" in text and "make docs" in text
    links = re.findall(r"\]\((?!https?://)([^)#]+)", text)
    assert len(links) > 20
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_every_file_the_pages_name_exists():
    """A module, test, configuration or picture named by the README or a page (`archive/…/x.py`,
    `deploy/nginx.conf`, `.ci/run` …) is in the tree: a rename updates the pages too."""
    named = PATH.findall
    missing, seen = [], 0
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for path in set(named(page.read_text())):
            if re.search(r"\.(py|conf|toml|md|yml|png)$", path) or path.startswith(".ci/"):
                seen += 1
                if not (ROOT / path).exists():
                    missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert seen > 200
    assert missing == []


def test_every_page_is_in_the_sites_navigation():
    """A page of docs/ left out of mkdocs.yml's nav is a page no reader finds."""
    nav = set(re.findall(r":\s+([\w/.-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    pages = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")}
    assert pages - nav == set()
    assert nav - pages == {"api/reference.md"}  # written at build time (docs/hooks/openapi.py)


def test_the_site_builds_with_every_warning_an_error(tmp_path):
    """`mkdocs build --strict`, as .ci/run does: no broken link or anchor, nothing fetched."""
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    done = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path),
                               "LANG": "C.UTF-8", "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    reference = (tmp_path / "site" / "api" / "reference" / "index.html").read_text()
    assert "/api/items/" in reference and "Idempotency-Key" in reference
    assert (tmp_path / "site" / "api" / "openapi.json").stat().st_size > 10_000
    assert (tmp_path / "site" / "api" / "redoc.standalone.js").exists()
