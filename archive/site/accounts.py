"""/accounts/: the pages of people who are not staff (issue 35, 1). Signing up with an
address and a password is one way in (archive/accounts/ assumes none); Django's own views
sign in and out, reset and change passwords, with this site's templates and forms.

Every page is the person's own: never cached, no Referrer, no index. Every form is
CSRF-protected (Django's middleware). Forms that mail an address (sign-up, a new link, a
reset) count per client address (IBI_ACCOUNT_REQUESTS) and per address mailed
(IBI_ACCOUNT_MAILS); wrong passwords per address signed in with (IBI_ACCOUNT_LOGIN_FAILURES)
and per client address (django-axes): past them, the form again with 429 and Retry-After.
None tells whether an address has an account. `next` is followed only to this site
(Django's LoginView asks url_has_allowed_host_and_scheme).
"""
from __future__ import annotations

import hashlib
import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.decorators import method_decorator
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from ..accounts import directory, orcid, selectors, services, tasks
from ..refusals import Refusal
from ..review import selectors as review
from ..web import nudges
from ..web.addresses import base_url
from ..web.errors import too_many
from ..web.throttling import FailureThrottle

SIGNED_UP = "accounts_signed_up"  # the session's address just signed up with


def _private(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    patch_cache_control(response, private=True)
    response["Referrer-Policy"] = "same-origin"
    return response


def _digest(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


def _mailing_waits(request: HttpRequest, email: str) -> int | None:
    """Seconds before a form that mails `email` is heard from this client again, or None;
    a form heard counts, for the client and for the address."""
    throttles = [FailureThrottle("account_client")]
    if email.strip():
        throttles.append(FailureThrottle("account_mail", f"mail-{_digest(email)}"))
    waits = [wait for wait in (t.retry_after(request) for t in throttles) if wait is not None]
    if waits:
        return max(waits)
    for throttle in throttles:
        throttle.record(request)
    return None


def _mail_soon() -> None:
    """The mails just owed, sent after the commit, off the request's thread."""
    transaction.on_commit(lambda: nudges.soon(tasks.mail_account_mails))


def _page(request: HttpRequest, template: str, context: dict, status: int = 200,
          wait: int | None = None) -> HttpResponse:
    response = _private(render(request, f"archive/accounts/{template}", context,
                               status=429 if wait else status))
    return too_many(wait, response) if wait else response


# -- Sign-up and the address's verification ---------------------------------------------------

class SignUpForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=200,
                           widget=forms.TextInput(attrs={"autocomplete": "name"}))
    email = forms.EmailField(label=_("Email address"), max_length=150,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}),
                             help_text=_("You sign in with it; we mail it a link to verify "
                                         "it."))
    password1 = forms.CharField(label=_("Password"), strip=False,
                                widget=forms.PasswordInput(attrs={"autocomplete":
                                                                  "new-password"}))
    password2 = forms.CharField(label=_("Password again"), strip=False,
                                widget=forms.PasswordInput(attrs={"autocomplete":
                                                                  "new-password"}))

    def clean(self) -> dict:
        data = super().clean()
        first, second = data.get("password1"), data.get("password2")
        if first and second and first != second:
            self.add_error("password2", _("The two passwords differ."))
        elif first:
            # Django's validators (settings.AUTH_PASSWORD_VALIDATORS), the person's own name
            # and address among what a password must not resemble.
            person = get_user_model()(username=data.get("email", ""),
                                      email=data.get("email", ""),
                                      first_name=data.get("name", "")[:150])
            try:
                validate_password(first, person)
            except ValidationError as exc:
                self.add_error("password1", exc)
        return data


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("archive:account")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method != "POST":
        return _page(request, "signup.html", {"form": form})
    wait = _mailing_waits(request, request.POST.get("email", ""))
    if wait:
        return _page(request, "signup.html", {"form": form, "throttled": True}, wait=wait)
    if not form.is_valid():
        return _page(request, "signup.html", {"form": form}, status=400)
    data = form.cleaned_data
    services.sign_up(name=data["name"], email=data["email"], password=data["password1"],
                     base=base_url(request), language=get_language() or "")
    _mail_soon()
    request.session[SIGNED_UP] = data["email"]
    return redirect("archive:account_verify_sent")


class ResendForm(forms.Form):
    email = forms.EmailField(label=_("Email address"), max_length=254,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))


@require_http_methods(["GET", "HEAD", "POST"])
def verify_sent(request: HttpRequest) -> HttpResponse:
    """GET: where the link went (after a sign-up), and a form for a new one; POST: a new
    link, mailed if an account waits for the address (the same answer otherwise)."""
    email = request.session.get(SIGNED_UP, "")
    context = {"email": email, "resent": "resent" in request.GET,
               # Only after a sign-up, where a mail is owed whether or not the address had an
               # account: it tells nothing of which.
               "held_up": bool(email) and selectors.mail_held_up(email)}
    if request.method != "POST":
        context["form"] = ResendForm(initial={"email": email})
        return _page(request, "verify_sent.html", context)
    form = context["form"] = ResendForm(request.POST)
    wait = _mailing_waits(request, request.POST.get("email", ""))
    if wait:
        return _page(request, "verify_sent.html", {**context, "throttled": True}, wait=wait)
    if not form.is_valid():
        return _page(request, "verify_sent.html", context, status=400)
    services.ask_verification(email=form.cleaned_data["email"], base=base_url(request),
                              language=get_language() or "")
    _mail_soon()
    return redirect(reverse("archive:account_verify_sent") + "?resent")


@require_safe
def verify(request: HttpRequest, token: str) -> HttpResponse:
    """A link mailed to verify an address: verified (then sign in), or why not."""
    try:
        services.verify_email(token)
    except Refusal as exc:
        failure = {services.LinkExpired: "expired", services.LinkUsed: "used"}.get(
            type(exc), "invalid")
        return _page(request, "verify.html", {"failure": failure, "reason": str(exc),
                                              "form": ResendForm()}, status=exc.status)
    request.session.pop(SIGNED_UP, None)
    return _page(request, "verify.html", {"failure": ""})


# -- Signing in and out ------------------------------------------------------------------------

class LoginForm(AuthenticationForm):
    """Django's, by email address (archive/accounts/backends.py), saying so when the
    password is right but the address not verified yet."""

    error_messages = {**AuthenticationForm.error_messages, "invalid_login": _(
        "This email address and password do not match an account. The password is "
        "case-sensitive; the address is not.")}
    username = forms.CharField(label=_("Email address"), max_length=254,
                               widget=forms.TextInput(attrs={"autocomplete": "email",
                                                             "autofocus": True}))

    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        if settings.IBI_LDAP_URI:  # the campus directory signs people in too
            self.fields["username"].label = _("Email address or campus username")
            self.fields["username"].widget.attrs["autocomplete"] = "username"

    def clean(self) -> dict:
        try:
            return super().clean()
        except ValidationError:
            email, password = self.cleaned_data.get("username"), \
                self.cleaned_data.get("password")
            if email and password and selectors.awaiting_verification(email, password):
                raise ValidationError(
                    _("Your email address is not verified yet: follow the link we mailed "
                      "you, or ask for a new one."), code="unverified") from None
            if email and password and selectors.disabled_with(email, password):
                raise ValidationError(str(services.AccountDisabled.message),
                                      code="disabled") from None
            said = directory.refusal(self.request)
            if said:  # the directory down, or the person it vouches for refused
                raise ValidationError(said, code="directory") from None
            raise


@method_decorator(never_cache, name="dispatch")
class LoginView(auth.LoginView):
    form_class = LoginForm
    template_name = "archive/accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        email = request.POST.get("username", "")
        self.failures = FailureThrottle("account_login", f"login-{_digest(email)}")
        wait = self.failures.retry_after(request)
        if wait:
            return too_many(wait, _private(self.render_to_response(self.get_context_data(
                form=self.get_form(), throttled=True), status=429)))
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        self.failures.record(self.request)
        return _private(self.render_to_response(self.get_context_data(form=form), status=400))

    def get_context_data(self, **kwargs) -> dict:
        return {**super().get_context_data(**kwargs), "orcid_login": _orcid_login()}

    def render_to_response(self, context, **kwargs):
        return _private(super().render_to_response(context, **kwargs))


def _orcid_login() -> str:
    """Where signing in with ORCID starts; "" when it is not set up."""
    return reverse("archive:orcid_login") if orcid.configured() else ""


# -- Passwords -------------------------------------------------------------------------------

class ResetForm(forms.Form):
    email = forms.EmailField(label=_("Email address"), max_length=254,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))


@method_decorator(never_cache, name="dispatch")
class PasswordResetView(auth.PasswordResetView):
    """A link to set a new password mailed to the address's holder; the same answer for an
    address without an account."""

    form_class = ResetForm
    template_name = "archive/accounts/password_reset.html"
    success_url = reverse_lazy("archive:password_reset_sent")

    def post(self, request, *args, **kwargs):
        wait = _mailing_waits(request, request.POST.get("email", ""))
        if wait:
            return too_many(wait, _private(self.render_to_response(self.get_context_data(
                form=self.get_form(), throttled=True), status=429)))
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        services.ask_password_reset(email=form.cleaned_data["email"],
                                    base=base_url(self.request),
                                    language=get_language() or "")
        _mail_soon()
        return redirect(self.success_url)

    def form_invalid(self, form):
        return _private(self.render_to_response(self.get_context_data(form=form), status=400))


class PasswordResetSentView(auth.PasswordResetDoneView):
    template_name = "archive/accounts/password_reset_sent.html"


class PasswordResetConfirmView(auth.PasswordResetConfirmView):
    template_name = "archive/accounts/password_reset_confirm.html"
    success_url = reverse_lazy("archive:password_reset_done")


class PasswordResetDoneView(auth.PasswordResetCompleteView):
    template_name = "archive/accounts/password_reset_done.html"


class PasswordChangeView(auth.PasswordChangeView):
    template_name = "archive/accounts/password_change.html"
    success_url = reverse_lazy("archive:account")

    def form_valid(self, form):
        messages.success(self.request, _("Your password was changed."))
        return super().form_valid(form)


# -- The person's own page ---------------------------------------------------------------------

def _account_page(request: HttpRequest, refusal: Refusal | None = None) -> HttpResponse:
    user = request.user
    found = selectors.account_of(user)
    identities = selectors.identities_of(user)
    has_password = user.has_usable_password()
    return _page(request, "account.html", {
        "account": found, "name": found.name if found else user.get_full_name(),
        "roles": review.held_roles(user), "identities": identities,
        "orcids": selectors.orcids_of(user), "orcid_login": _orcid_login(),
        "removable": len(identities) + has_password > 1,
        "has_password": has_password, "refusal": str(refusal) if refusal else ""},
        status=refusal.status if refusal else 200)


@require_safe
@login_required
def account(request: HttpRequest) -> HttpResponse:
    """Who the person is, whether their address is verified, the roles they hold, their
    ways in (each removable but the last), and what the repository holds about them."""
    return _account_page(request)


@require_http_methods(["POST"])
@login_required
def unlink(request: HttpRequest, identity_id: int) -> HttpResponse:
    """One of the person's ways in removed; the last, or another's, refused: the account
    page again with the reason (409, 404), nothing removed."""
    try:
        services.unlink_identity(user=request.user, identity_id=identity_id)
    except Refusal as exc:
        return _account_page(request, exc)
    messages.success(request, _("That way in was removed from your account."))
    return redirect("archive:account")


@require_safe
@login_required
def personal_data(request: HttpRequest) -> HttpResponse:
    """What the repository holds about the person (LGPD), as a JSON file to keep."""
    body = json.dumps(selectors.personal_data(request.user), ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="my-data.json"'
    return _private(response)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def erasure(request: HttpRequest) -> HttpResponse:
    """GET: what erasure erases and keeps; POST: the request, for the librarians."""
    found = selectors.account_of(request.user)
    if request.method == "POST":
        try:
            found = services.ask_erasure(user=request.user)
        except Refusal as exc:
            return _page(request, "erasure.html", {"account": found, "refusal": str(exc)},
                         status=exc.status)
        messages.success(request, _("Your request to erase your data was sent to the "
                                    "library."))
        return redirect("archive:account")
    return _page(request, "erasure.html", {"account": found})
