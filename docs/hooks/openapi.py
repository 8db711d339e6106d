"""MkDocs hook (mkdocs.yml `hooks:`): the REST API's reference, written at every build from the
OpenAPI schema of this tree, as `manage.py spectacular` writes it and `/api/schema/` serves it.

It adds three files to the site, none of them kept in docs/: `api/reference.md` (every
operation with its parameters, request body and answers, as a page of the site),
`api/openapi.json` (the schema itself) and `api/redoc.html` (ReDoc over that file, from
drf-spectacular-sidecar's bundle, so the interactive page works offline too). Nothing is
fetched: the schema comes from the code, ReDoc from the installed package.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("get", "head", "post", "put", "patch", "delete", "options")


def openapi_schema() -> dict:
    """The schema drf-spectacular generates for this tree (the same as /api/schema/)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")
    # The schema signs nothing: a throw-away key, so that the settings (production mode, as
    # the served schema is) start without a warning.
    os.environ.setdefault("SECRET_KEY", "docs-build-only-" + "0123456789" * 5)
    import django

    django.setup()
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _cell(text: object) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


def _type(schema: dict) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"] if value is not None)
    if "oneOf" in schema or "anyOf" in schema:
        return " or ".join(_type(part) for part in schema.get("oneOf", schema.get("anyOf")))
    return schema.get("format") or schema.get("type") or "object"


def _answer(answer: dict) -> str:
    """An answer's meaning, and the body it carries: `application/json`: Item."""
    bodies = [f"`{kind}`: {_type(content.get('schema', {}))}"
              for kind, content in answer.get("content", {}).items() if content.get("schema")]
    return "; ".join(filter(None, [_cell(answer.get("description")), ", ".join(bodies)]))


def reference_markdown(schema: dict) -> str:
    """Every operation of the schema as Markdown, in the schema's order."""
    info = schema.get("info", {})
    lines = [
        "# OpenAPI reference", "",
        f"{info.get('title', '')}, version {info.get('version', '')}: "
        f"{_cell(info.get('description'))}", "",
        "Written from the code at every build of this site (`docs/hooks/openapi.py`), as "
        "`manage.py spectacular` writes the schema and a running server serves it at "
        "`/api/schema/` (and its Swagger UI at `/api/docs/`). The schema itself: "
        "[openapi.json](openapi.json); the same as an interactive page: "
        "[ReDoc](redoc.html) (served by `make docs`).", "",
    ]
    for route, operations in schema.get("paths", {}).items():
        for method in METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            lines += [f"## {method.upper()} `{route}`", ""]
            if operation.get("summary"):
                lines += [operation["summary"].strip(), ""]
            if operation.get("description"):
                lines += [operation["description"].strip(), ""]
            parameters = operations.get("parameters", []) + operation.get("parameters", [])
            if parameters:
                lines += ["| parameter | in | required | type | meaning |", "|---|---|---|---|---|"]
                lines += [f"| `{p['name']}` | {p['in']} | {'yes' if p.get('required') else 'no'} "
                          f"| {_type(p.get('schema', {}))} | {_cell(p.get('description'))} |"
                          for p in parameters]
                lines.append("")
            body = operation.get("requestBody", {}).get("content", {})
            if body:
                lines += ["Request body: " + ", ".join(
                    f"`{kind}` ({_type(content.get('schema', {}))})"
                    for kind, content in body.items()), ""]
            lines += ["| answer | meaning |", "|---|---|"]
            lines += [f"| {status} | {_answer(answer)} |"
                      for status, answer in operation.get("responses", {}).items()]
            lines.append("")
    components = schema.get("components", {}).get("schemas", {})
    if components:
        lines += ["## Schemas", ""]
        for name, component in components.items():
            lines += [f"### {name}", ""]
            if component.get("description"):
                lines += [_cell(component["description"]), ""]
            properties = component.get("properties", {})
            if properties:
                required = set(component.get("required", []))
                lines += ["| field | type | required | meaning |", "|---|---|---|---|"]
                lines += [f"| `{field}` | {_type(spec)} | {'yes' if field in required else 'no'} "
                          f"| {_cell(spec.get('description'))} |"
                          for field, spec in properties.items()]
                lines.append("")
            elif "enum" in component:
                lines += [_type(component), ""]
    return "\n".join(lines) + "\n"


REDOC_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>IBI repository API (ReDoc)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="openapi.json"></redoc><script src="redoc.standalone.js"></script></body>
</html>
"""


def on_files(files, config):
    """Adds the reference page, the schema and ReDoc to the site's files."""
    import drf_spectacular_sidecar
    from mkdocs.structure.files import File

    schema = openapi_schema()
    redoc = (Path(drf_spectacular_sidecar.__file__).parent / "static" / "drf_spectacular_sidecar"
             / "redoc" / "bundles" / "redoc.standalone.js")
    files.append(File.generated(config, "api/reference.md", content=reference_markdown(schema)))
    files.append(File.generated(config, "api/openapi.json",
                                content=json.dumps(schema, indent=2, ensure_ascii=False)))
    files.append(File.generated(config, "api/redoc.html", content=REDOC_PAGE))
    files.append(File.generated(config, "api/redoc.standalone.js", abs_src_path=str(redoc)))
    return files
