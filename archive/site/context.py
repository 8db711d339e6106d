"""What every page says of itself and of its reader (settings.TEMPLATES' context processors):
its canonical address; the header's links for the roles its reader holds."""
from __future__ import annotations

from django.http import HttpRequest

from ..review import selectors as review
from ..web.addresses import base_url


def page(request: HttpRequest) -> dict[str, str]:
    """`canonical_url`: the page's own absolute URL without its query (a landing page's
    citation style, a language switch never make another page); templates may name another."""
    return {"canonical_url": base_url(request) + request.path}


def roles(request: HttpRequest) -> dict[str, object]:
    """The header's links to /submit/ and /review/ (`may_submit`, `may_review`): for who holds
    a submitter's or a reviewing role in some collection. Asked only when a page's header is
    drawn, and only of a signed-in person (nothing is asked for an anonymous reader). A page
    showing them depends on who reads it: the session read to know it makes the response
    vary on the cookie (SessionMiddleware), and the pages of a person are private."""
    user = getattr(request, "user", None)

    def may_submit() -> bool:
        return bool(user is not None and user.is_authenticated
                    and review.submitter_collections(user).exists())

    def may_review() -> bool:
        return bool(user is not None and user.is_authenticated
                    and review.reviewing_collections(user).exists())

    return {"may_submit": may_submit, "may_review": may_review}
