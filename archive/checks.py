"""System checks for the identification settings and institutional login (SAML)."""
from __future__ import annotations

import shutil

from django.conf import settings
from django.core.checks import Error, Warning, register
from django.utils.translation import gettext as _


@register()
def identification_placeholders(app_configs, **kwargs) -> list:
    warnings = []
    if settings.IBI_HOSTNAME == settings.IBI_PLACEHOLDER_HOSTNAME:
        warnings.append(Warning(
            _("IBI_HOSTNAME is the placeholder %(hostname)r: the repository names minted now "
              "will name a host that is not yours.") % {"hostname": settings.IBI_HOSTNAME},
            hint=_("Set IBI_HOSTNAME (and IBI_PORT) to the real host of this identification "
                   "subsystem before depositing anything you want to keep."),
            id="archive.W001"))
    if settings.IBI_IP == settings.IBI_PLACEHOLDER_IP:
        warnings.append(Warning(
            _("IBI_IP is the placeholder %(ip)s: IBIp minted now code a loopback address shared "
              "by every laptop.") % {"ip": settings.IBI_IP},
            hint=_("Set IBI_IP (and IBI_IP_PORT) to the public IP of this subsystem."),
            id="archive.W002"))
    return warnings


@register()
def saml_settings(app_configs, **kwargs) -> list:
    """Institutional login needs what proves the federation's metadata and the answers, and
    the organization and contacts its metadata names as the federation needs them (checked
    whenever they are set: /saml/metadata/ publishes them)."""
    organization = _saml_organization() if (settings.IBI_SAML_ORGANIZATION
                                            or settings.IBI_SAML_CONTACTS) else []
    if not settings.IBI_SAML_METADATA:
        return organization
    errors = []
    if not settings.IBI_SAML_METADATA_CERT:
        errors.append(Error(
            _("IBI_SAML_METADATA is set but IBI_SAML_METADATA_CERT is not: the federation's "
              "metadata cannot be checked, so none is taken."),
            hint=_("Set IBI_SAML_METADATA_CERT to the certificate the federation signs its "
                   "metadata with."), id="archive.E101"))
    if shutil.which(settings.XMLSEC1) is None:
        errors.append(Error(
            _("%(program)s is not found: no SAML signature can be checked.")
            % {"program": settings.XMLSEC1},
            hint=_("Install Debian's xmlsec1 (make system-packages) or set XMLSEC1."),
            id="archive.E102"))
    if settings.IBI_SAML_MDQ and not settings.IBI_SAML_MDQ_CERT:
        errors.append(Error(
            _("IBI_SAML_MDQ is set but IBI_SAML_MDQ_CERT is not: no answer of the metadata "
              "query service can be checked, so none is taken."),
            hint=_("Set IBI_SAML_MDQ_CERT to the certificate the service signs its answers "
                   "with."), id="archive.E105"))
    chosen = set(settings.IBI_SAML_IDENTIFIERS.values())
    wrong = sorted(map(str, chosen - {"eduPersonPrincipalName", "subject-id", "pairwise-id"}))
    if wrong:
        errors.append(Error(
            _("IBI_SAML_IDENTIFIERS names attributes that cannot identify a person: "
              "%(names)s.") % {"names": ", ".join(wrong)},
            hint=_("Choose eduPersonPrincipalName, subject-id or pairwise-id for each "
                   "identity provider."), id="archive.E103"))
    return errors + organization


def _saml_organization() -> list:
    from django.core.exceptions import ImproperlyConfigured

    from .accounts import saml  # pysaml2's weight, only where it is configured
    try:
        saml.organization(settings.IBI_SAML_ORGANIZATION)
        saml.contacts(settings.IBI_SAML_CONTACTS)
    except ImproperlyConfigured as exc:
        return [Error(
            _("The service provider's organization or contacts are not as the federation "
              "needs them: %(reason)s") % {"reason": exc},
            hint=_("See IBI_SAML_ORGANIZATION and IBI_SAML_CONTACTS in the operators' "
                   "settings."), id="archive.E104")]
    return []
