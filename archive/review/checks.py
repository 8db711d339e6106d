"""The checks before review (issue 35, 6), decided: pure functions of what the tools found
(checking.py runs the tools and keeps the results). Each gives a `Result`: pass, warn, fail
or "not run", and a message kept untranslated (its English text and its values), which the
edges show in the reader's language (`Result.text`), so a result found by a worker speaking
English reads in Portuguese to a Brazilian submitter.

    >>> png = Identified("fmt/11", "image/png", "Portable Network Graphics")
    >>> format_result("tese.pdf", png, ["application/pdf", "fmt/276"]).outcome
    'fail'
    >>> format_result("tese.png", png, []).outcome, format_result("tese.pdf", png, []).outcome
    ('pass', 'warn')
    >>> duplicate_key("Avaliação  da Seca!"), creator_key("Silva, Ana") == creator_key("Ana Silva")
    ('avaliacao da seca', True)
"""
from __future__ import annotations

import hashlib
import json
import mimetypes
import re
import unicodedata
from collections.abc import Iterable
from typing import Any, NamedTuple

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from ..profiles.check import Entry, entry_of

PASS, WARN, FAIL, NOT_RUN = "pass", "warn", "fail", "not_run"
OUTCOMES = (PASS, WARN, FAIL, NOT_RUN)

REQUIRED, FORMAT, TEXT_LAYER, VIRUS, DUPLICATE = (
    "required_fields", "format", "text_layer", "virus", "duplicate")
CHECKS = (REQUIRED, FORMAT, TEXT_LAYER, VIRUS, DUPLICATE)
# Checks that read the files (the slow ones: checking.py runs them off the request).
FILE_CHECKS = (FORMAT, TEXT_LAYER, VIRUS)

PDF_MIME = "application/pdf"


def fingerprint(submission: Any) -> str:
    """What the checks read of a submission (its collection, title, metadata and files),
    hashed: a change of it makes them due again, and results kept for another are stale."""
    content = [submission.collection_id, submission.title, submission.metadata,
               submission.files]
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()


class Result(NamedTuple):
    """One check's outcome, for the submission (`file` "") or one of its files (an upload's
    id and name). `message` is an English text with %(name)s values from `params`."""

    name: str
    outcome: str
    message: str
    params: dict[str, Any] = {}
    file: str = ""
    file_name: str = ""
    details: dict[str, Any] = {}

    def text(self) -> str:
        """The message in the active language."""
        return translated(self.message, self.params)


def translated(message: str, params: dict[str, Any]) -> str:
    return _(message) % params if params else _(message)


class Identified(NamedTuple):
    """What the format identification said of a file's content: its PRONOM id ("" when none
    matched), MIME type and format's name."""

    puid: str
    mime: str = ""
    name: str = ""


def siegfried_answer(answer: dict) -> Identified:
    """What siegfried's detailed answer about one file says of its content: its first
    PRONOM match, unless siegfried had only the file's name to go by ("match on extension
    only": an empty file, or bytes no signature knows) or matched nothing.

    >>> siegfried_answer({"files": [{"matches": [{"ns": "pronom", "id": "fmt/11",
    ...     "mime": "image/png", "format": "Portable Network Graphics",
    ...     "basis": "byte match at [[0 16]]", "warning": "extension mismatch"}]}]})
    Identified(puid='fmt/11', mime='image/png', name='Portable Network Graphics')
    >>> siegfried_answer({"files": [{"matches": [{"ns": "pronom", "id": "fmt/208",
    ...     "basis": "extension match bin", "warning": "match on extension only"}]}]})
    Identified(puid='', mime='', name='')
    """
    matches = [m for f in answer.get("files", []) for m in f.get("matches", [])
               if m.get("ns") == "pronom"]
    if not matches:
        return Identified("")
    match = matches[0]
    if match.get("id") in (None, "", "UNKNOWN") or "extension only" in match.get("warning", ""):
        return Identified("")
    return Identified(match["id"], match.get("mime", ""), match.get("format", ""))


class Scan(NamedTuple):
    """What the virus scanner said of one file: `ran` false when it could not scan (not
    installed, no signature database, an error: `error` says which); `found`, the name of
    the signature found, "" when clean."""

    ran: bool
    found: str = ""
    error: str = ""


def required_result(title: str, entries: list[Entry], metadata: Iterable[dict]) -> Result:
    """The title and the profile's required fields (`entries`, profiles/check.py's) in the
    submission's qualified values: those without a value fail.

    >>> author = Entry("dc.contributor.author", required=True)
    >>> required_result("Tese", [author], [{"field": "dc.title", "value": "x"}]).params
    {'fields': 'dc.contributor.author'}
    """
    languages: dict[str, list[str]] = {}
    for row in metadata:
        languages.setdefault(row["field"], []).append(row.get("language", ""))
    missing = [entry.key for entry in entries if entry.required and not any(
        entry_of(entries, entry.name, language) == entry
        for language in languages.get(entry.name, ()))]
    if not title.strip():
        missing.insert(0, "dc.title")
    if not missing:
        return Result(REQUIRED, PASS, gettext_noop("every field the profile requires is "
                                                   "filled in"))
    return Result(REQUIRED, FAIL, gettext_noop("required and still empty: %(fields)s"),
                  {"fields": ", ".join(missing)}, details={"missing": missing})


def unfinished_result(name: str, *, file: str = "") -> Result:
    """A file whose bytes have not all arrived: nothing of it is checked yet."""
    return Result(FORMAT, NOT_RUN, gettext_noop("%(file)s has not finished uploading"),
                  {"file": name}, file, name)


def format_result(name: str, found: Identified, accepted: list[str], *,
                  file: str = "") -> Result:
    """A file's format, from its content, against the collection's accepted formats (empty:
    any). A content unlike its name's extension (a PNG named .pdf) is a warning where the
    format is accepted; an unidentified one fails where the collection names formats."""
    details = {"puid": found.puid, "mime": found.mime, "format": found.name}
    params = {"file": name, "format": found.name or found.mime or found.puid,
              "puid": found.puid}

    def result(outcome: str, message: str, **more: str) -> Result:
        return Result(FORMAT, outcome, message, {**params, **more}, file, name, details)

    if not found.puid:
        return result(FAIL if accepted else WARN, gettext_noop(
            "%(file)s: its format could not be identified from its content"))
    mimes = _mimes(found)
    if accepted and found.puid.lower() not in accepted and not mimes & set(accepted):
        return result(FAIL, gettext_noop(
            "%(file)s is %(format)s (%(puid)s), which this collection does not accept"),
            accepted=", ".join(accepted))
    named = mimetypes.guess_type(name, strict=False)[0]
    if named and mimes and named.lower() not in mimes:
        return result(WARN, gettext_noop(
            "%(file)s is named as %(named)s but its content is %(format)s (%(puid)s)"),
            named=named)
    return result(PASS, gettext_noop("%(file)s: %(format)s (%(puid)s)"))


def _mimes(found: Identified) -> set[str]:
    """The MIME types PRONOM gives a format (some give two: "text/xml, application/xml")."""
    return {m.strip().lower() for m in found.mime.split(",")} - {""}


def is_pdf(found: Identified) -> bool:
    return PDF_MIME in _mimes(found)


def text_layer_result(name: str, text: str | None, *, file: str = "",
                      pages: int = 0) -> Result:
    """A PDF's text layer, from the text of its first pages (None: the PDF could not be
    read). No text: a scan, whose words no search and no screen reader finds: a warning."""
    params = {"file": name, "pages": pages}
    if text is None:
        return Result(TEXT_LAYER, WARN, gettext_noop("%(file)s: the PDF could not be read to "
                                                     "look for its text"), params, file, name)
    if text.strip():
        return Result(TEXT_LAYER, PASS, gettext_noop("%(file)s has a text layer"), params,
                      file, name, {"characters": len(text.strip())})
    return Result(TEXT_LAYER, WARN, gettext_noop(
        "%(file)s has no text in its first pages: a scanned PDF? Its words are found by no "
        "search and read by no screen reader; send one with its text (OCR) if you can"),
        params, file, name)


def virus_result(name: str, scan: Scan, *, file: str = "") -> Result:
    """A file's virus scan: a signature found fails; a scan that could not run is "not run"
    (settings.IBI_VIRUS_SCAN_REQUIRED says whether that blocks, `blocking`)."""
    params = {"file": name}
    if not scan.ran:
        return Result(VIRUS, NOT_RUN, gettext_noop("%(file)s: not scanned for viruses "
                                                   "(%(error)s)"),
                      {**params, "error": scan.error}, file, name, {"error": scan.error})
    if scan.found:
        return Result(VIRUS, FAIL, gettext_noop("%(file)s is infected: %(signature)s"),
                      {**params, "signature": scan.found}, file, name,
                      {"signature": scan.found})
    return Result(VIRUS, PASS, gettext_noop("%(file)s: no virus found"), params, file, name)


def clamscan_output(paths: dict[str, str], returncode: int, stdout: str,
                    stderr: str = "") -> dict[str, Scan]:
    """Each file's Scan from clamscan's (or clamdscan's) answer about `paths` (path → key):
    exit 0 none found, 1 some found ("<path>: <signature> FOUND" lines), anything else an
    error, which leaves the files it did not name unscanned.

    >>> clamscan_output({"/t/a": "a", "/t/b": "b"}, 1, "/t/a: Eicar-Test FOUND\\n/t/b: OK\\n")
    {'a': Scan(ran=True, found='Eicar-Test', error=''), 'b': Scan(ran=True, found='', error='')}
    """
    found: dict[str, str] = {}
    clean: set[str] = set()
    for line in stdout.splitlines():
        path, sep, verdict = line.rpartition(": ")
        if not sep or path not in paths:
            continue
        if verdict.endswith(" FOUND"):
            found[path] = verdict.removesuffix(" FOUND").strip()
        elif verdict.strip() == "OK":
            clean.add(path)
    error = (stderr.strip().splitlines() or [f"exit status {returncode}"])[-1][:300]
    scans = {}
    for path, key in paths.items():
        if path in found:
            scans[key] = Scan(True, found[path])
        elif returncode in (0, 1) and (path in clean or returncode == 0):
            scans[key] = Scan(True)
        else:
            scans[key] = Scan(False, error=error)
    return scans


_NOT_WORD = re.compile(r"[\W_]+")


def duplicate_key(text: str) -> str:
    """A title or a name as compared: accents and case off, punctuation and repeated spaces
    gone."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text or "")
                    if not unicodedata.combining(c))
    return " ".join(_NOT_WORD.sub(" ", plain.casefold()).split())


def creator_key(name: str) -> str:
    """A person's name as compared, whatever its order ("Silva, Ana" is "Ana Silva")."""
    return " ".join(sorted(duplicate_key(name).split()))


class Candidate(NamedTuple):
    """Something already there that may be the same work: an item (its IBI) or another open
    submission (its id), its title and creators."""

    kind: str  # "item" or "submission"
    ref: str
    title: str
    creators: tuple[str, ...]


def duplicate_result(title: str, creators: Iterable[str],
                     candidates: Iterable[Candidate]) -> Result:
    """A likely duplicate: the same title and a creator in common (or neither with a
    creator), once normalised. A warning, naming what it duplicates."""
    key = duplicate_key(title)
    mine = {creator_key(c) for c in creators} - {""}
    if key:
        for other in candidates:
            theirs = {creator_key(c) for c in other.creators} - {""}
            if duplicate_key(other.title) == key and (mine & theirs or not mine and not theirs):
                message = (gettext_noop("likely a duplicate of the item %(ref)s, with the same "
                                        "title and creator") if other.kind == "item" else
                           gettext_noop("likely a duplicate of the submission %(ref)s, with "
                                        "the same title and creator"))
                return Result(DUPLICATE, WARN, message, {"ref": other.ref}, details={
                    "kind": other.kind, "ref": other.ref})
    return Result(DUPLICATE, PASS, gettext_noop("no item or open submission has the same "
                                                "title and creator"))


def blocking(results: Iterable[Result], blocking_checks: Iterable[str], *,
             unscanned_blocks: bool = False) -> Result | None:
    """The first result that stops a submission: a failure of a check the collection makes
    blocking, or, with `unscanned_blocks`, a blocking virus scan that could not run.

    >>> fail = Result(VIRUS, FAIL, "infected")
    >>> blocking([fail], [FORMAT]), blocking([fail], [VIRUS]) == fail
    (None, True)
    """
    wanted = set(blocking_checks)
    for result in results:
        unscanned = result.name == VIRUS and result.outcome == NOT_RUN
        if result.name in wanted and (result.outcome == FAIL
                                      or unscanned_blocks and unscanned):
            return result
    return None
