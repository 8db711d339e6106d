"""Celery task of accounts: thin and idempotent. `mail_account_mails` mails what is owed to
account holders (services.py `mail_owed`): nudged when a form asks for a mail, run by the
beat every IBI_ACCESS_MAILS_EVERY seconds for what a mail server refused.
`refresh_saml_metadata` fetches and checks the federation's metadata (federation.py)."""
from __future__ import annotations

from celery import shared_task

from . import federation, invitations, services


@shared_task(name="archive.tasks.mail_account_mails")
def mail_account_mails() -> int:
    """Every mail owed to an account holder (or to a creator asked to connect their ORCID
    iD), mailed; how many went."""
    return services.mail_owed() + invitations.mail_owed()



@shared_task(name="archive.tasks.refresh_saml_metadata")
def refresh_saml_metadata() -> bool:
    """The federation's metadata aggregate fetched and checked again; False when it was
    refused (logged; the last good one stays) or SAML is off."""
    try:
        return federation.refresh() is not None
    except federation.AggregateRefused:
        return False
