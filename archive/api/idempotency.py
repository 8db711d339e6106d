"""The API's idempotency middleware: every write (POST, PUT, PATCH, DELETE) of every API view
takes an ``Idempotency-Key`` (archive/deposit/idempotency.py keeps the keys and their rules).

Mixed into the views (views/items.py, views/copies.py, and views/communities.py for a POST of
the tree, whose answer is the community or collection written) rather than installed in
settings.MIDDLEWARE: what makes two requests "the same" is their fields and their files'
checksums, which exist only once DRF has parsed the body with the API's own strict parsers (a
Django middleware reading a multipart body first would take it from them, and hold a large
upload in memory). It runs where a middleware would, around the whole write:

1. after authentication, permissions and throttles (`initial`), the key is claimed for this
   request, or found done (the item as it is now is answered again, with the first answer's
   status and ``Idempotent-Replayed: true``), or refused (409);
2. the write's service links the key to the item in its own transaction (`on_saved`);
3. after the answer (`finalize_response`), a failed write releases the key; a successful one
   that wrote nothing new (a hand-over done before) links it then.

Whatever the key, a write that committed is never answered "send it again": should the
database connection drop after the commit (while the record is read back for the answer), the
answer is 303 See Other to the item, whose IBI it names (`after_commit`). A client that sent
it again anyway gets the first item, not a second one: with a key by the key, without one by
the deposit's own content (deposit/idempotency.py `repeated_deposit`).
"""
from __future__ import annotations

from django.db import DatabaseError, transaction
from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.response import Response

from ..deposit import idempotency, services
from ..models import Item
from ..web.middleware import close_dropped

WRITES = ("POST", "PUT", "PATCH", "DELETE")
HEADER = "Idempotency-Key"


class Replay(Exception):
    """The same request was done before: answer `item` as it is now, with `status`."""

    def __init__(self, item: Item, status: int) -> None:
        self.item, self.status = item, status


def _parts(request) -> tuple[object, list[tuple[str, str]]]:
    """The fields and files (names and sha256, as the upload handler computed them) of a
    parsed DRF request."""
    data, files = request.data, []
    if hasattr(data, "getlist"):  # a form: each name's values, the files apart
        names = [name for name in data if name not in request.FILES]
        fields = {name: data.getlist(name) for name in names}
        files = [(f.name, getattr(f, "sha256", "")) for name in request.FILES
                 for f in request.FILES.getlist(name)]
    else:
        fields = data
    return fields, files


def request_fingerprint(request) -> str:
    """The method, path, fields and files of a parsed DRF request: the same request again."""
    fields, files = _parts(request)
    return idempotency.fingerprint(request.method, request.path, fields, files)


def deposit_content(request) -> str:
    """The deposit a POST without a key makes, by its content: the pending uploads it names
    by their bytes, not their ids (deposit/idempotency.py `deposit_content`)."""
    fields, files = _parts(request)
    ids: object = []
    if isinstance(fields, dict):  # anything else the serializer refuses
        fields = dict(fields)
        ids = fields.pop("uploads", [])
    return idempotency.deposit_content(request.user, fields, files,
                                       ids if isinstance(ids, list) else [])


class IdempotentWrites:
    """For a DRF view: the Idempotency-Key of its writes. `success_status` says what each
    write method answers when it succeeds; the view answers with `record(item)` (the item
    written) and passes `self.on_saved` to the service that writes."""

    success_status: dict[str, int] = {}

    # Whether a POST without a key is a deposit recognised by its content (ItemList).
    recognises_repeats = False

    claim: idempotency.Claim | None = None
    content: str | None = None  # the fingerprint of a deposit sent without a key
    answered: Item | None = None
    committed: Item | None = None  # the item a committed write wrote
    linked = False

    def on_saved(self, item: Item) -> None:
        """The services' on_saved: the key linked to the item in the write's transaction (or,
        without a key, the deposit's content), and the item remembered once that transaction
        has committed."""
        if self.claim is not None:
            self.claim.link(item)
            self.linked = True
        if self.content is not None:
            idempotency.remember_deposit(self.request.user, self.content, item)
        transaction.on_commit(lambda: setattr(self, "committed", item))

    def location(self, item: Item) -> str:
        """Where what a write wrote is read (the API's URL of an item; a view writing
        something else says its own)."""
        return self.request.build_absolute_uri(reverse("api:item", args=[item.ibi]))

    def after_commit(self, item: Item) -> Response:
        """The answer of a write that committed when the database failed afterwards: 303 to
        the item, never "send it again"."""
        return Response({"detail": _(
            "done: %(ibi)s was written, but the database connection was lost before the "
            "answer could be read back; read the item at the Location, and do not send the "
            "request again") % {"ibi": getattr(item, "ibi", None) or item.slug}},
            status=status.HTTP_303_SEE_OTHER, headers={"Location": self.location(item)})

    def handles(self, method: str) -> bool:
        """Whether the view answers this method (DRF answers the others 405)."""
        return method.lower() in self.http_method_names and hasattr(self, method.lower())

    def initial(self, request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        key = request.headers.get(HEADER)
        if request.method not in WRITES or not self.handles(request.method):
            return  # a method the view lacks gets its 405 from DRF, whatever the key
        if key is None:
            if self.recognises_repeats and request.method == "POST":
                self.content = deposit_content(request)
                earlier = idempotency.repeated_deposit(request.user, self.content)
                if earlier is not None:
                    raise Replay(earlier, status.HTTP_201_CREATED)
            return
        self.claim = idempotency.claim(
            user=request.user, key=key, request_fingerprint=request_fingerprint(request),
            status=self.success_status.get(request.method, status.HTTP_200_OK))
        if self.claim.replay is not None:
            raise Replay(self.claim.replay, self.claim.status)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, Replay):  # done before: nothing to link or release
            response = self.record(exc.item, exc.status)
            response["Idempotent-Replayed"] = "true"
            return response
        if self.committed is not None and isinstance(exc, DatabaseError):
            close_dropped()  # the next request starts on a fresh connection
            return self.after_commit(self.committed)
        if isinstance(exc, idempotency.Raced):  # an identical deposit committed first
            earlier = idempotency.repeated_deposit(self.request.user, self.content)
            if earlier is not None:
                return self.handle_exception(Replay(earlier, status.HTTP_201_CREATED))
            exc = services.Conflict(_("an identical deposit was at work at the same time and "
                                      "did not finish; send this one again"))
        if self.claim is not None and not self.linked and self.claim.replay is None:
            self.claim.release()
            self.claim = None
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        claim = self.claim
        if claim is None or claim.replay is not None or self.linked:
            return response
        if response.status_code < 300 and self.answered is not None:
            try:
                with transaction.atomic():
                    claim.link(self.answered)
            except services.Conflict:
                pass  # a retry took the key over: its answer is its own
        else:
            claim.release()
        return response
