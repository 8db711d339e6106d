"""Every write path of the app, discovered rather than listed by hand, for the tests that
must not fall behind one: the review's (tests/test_review_bypass.py, issue 35) and the
preservation events' (tests/test_premis_coverage.py, issue 38).

- `routes()`: URL route → view, outside the admin (`get_resolver()`);
- `writes(view)`: a class-based view's write methods, None for a function view (any method);
- `admin_models()`: the admin's models by name → their actions' names;
- `commands()`: the app's management commands; `tasks()`: its Celery tasks;
- `source_sites()`: (file, call) where the source deposits or builds an item.
"""
from __future__ import annotations

import re
from pathlib import Path

from django.contrib import admin
from django.core.management import get_commands
from django.urls import URLPattern, URLResolver, get_resolver

from ibirepo.celery import app as celery_app

ROOT = Path(__file__).resolve().parent.parent

_CALLS = re.compile(r"(?<![\w.])(?:services\.|deposit\.)?(item_deposit|deposit|Item\.objects\."
                    r"(?:create|bulk_create|get_or_create|update_or_create)|Item)\(")


def routes() -> dict[str, object]:
    def walk(resolver: URLResolver, prefix: str):
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern, prefix + str(pattern.pattern))
            else:
                assert isinstance(pattern, URLPattern)
                yield prefix + str(pattern.pattern), pattern.callback
    return {route: view for route, view in walk(get_resolver(), "")
            if not route.startswith("admin/")}


def writes(view) -> list[str] | None:
    """A class-based view's write methods; None for a function view (any method may come)."""
    cls = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if cls is None:
        return None
    return [m for m in ("post", "put", "patch", "delete") if hasattr(cls, m)]


def view_name(view) -> str:
    return f"{view.__module__}.{view.__name__}"


def admin_models() -> dict[str, set[str]]:
    """Each registered model's name → the names of its admin's actions."""
    return {model.__name__: {a if isinstance(a, str) else a.__name__
                             for a in model_admin.actions or ()}
            for model, model_admin in admin.site._registry.items()}


def commands() -> set[str]:
    return {c for c, app in get_commands().items() if app == "archive"}


def tasks() -> set[str]:
    celery_app.loader.import_default_modules()
    return {t for t in celery_app.tasks if t.startswith("archive.")}


def source_sites() -> set[tuple[str, str]]:
    found = set()
    for path in sorted((ROOT / "archive").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        relative = path.relative_to(ROOT).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("#")[0]
            if code.lstrip().startswith(("def ", "class ", ">>>")):
                continue
            for call in _CALLS.findall(code):
                if call == "deposit" and "services.deposit(" not in code:
                    continue
                found.add((relative, call))
    return found
