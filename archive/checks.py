"""System checks for the identification settings."""
from __future__ import annotations

from django.conf import settings
from django.core.checks import Warning, register
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
