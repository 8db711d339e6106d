"""System checks for the identification settings."""
from __future__ import annotations

from django.conf import settings
from django.core.checks import Warning, register


@register()
def identification_placeholders(app_configs, **kwargs) -> list:
    warnings = []
    if settings.IBI_HOSTNAME == settings.IBI_PLACEHOLDER_HOSTNAME:
        warnings.append(Warning(
            f"IBI_HOSTNAME is the placeholder {settings.IBI_HOSTNAME!r}: the repository names "
            "minted now will name a host that is not yours.",
            hint="Set IBI_HOSTNAME (and IBI_PORT) to the real host of this identification "
                 "subsystem before depositing anything you want to keep.",
            id="archive.W001"))
    if settings.IBI_IP == settings.IBI_PLACEHOLDER_IP:
        warnings.append(Warning(
            f"IBI_IP is the placeholder {settings.IBI_IP}: IBIp minted now code a loopback "
            "address shared by every laptop.",
            hint="Set IBI_IP (and IBI_IP_PORT) to the public IP of this subsystem.",
            id="archive.W002"))
    return warnings
