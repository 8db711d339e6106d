"""Celery task of accounts: thin and idempotent. `mail_account_mails` mails what is owed to
account holders (services.py `mail_owed`): nudged when a form asks for a mail, run by the
beat every IBI_ACCESS_MAILS_EVERY seconds for what a mail server refused."""
from __future__ import annotations

from celery import shared_task

from . import invitations, services


@shared_task(name="archive.tasks.mail_account_mails")
def mail_account_mails() -> int:
    """Every mail owed to an account holder (or to a creator asked to connect their ORCID
    iD), mailed; how many went."""
    return services.mail_owed() + invitations.mail_owed()
