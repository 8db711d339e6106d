"""The librarian's admin: thin ModelAdmins over deposit's services.

Django's admin autodiscovery imports this package; each module registers its own ModelAdmins.
- items: deposit, describe, link and tombstone items (forms: the deposit form, which
  validates, its files waiting shown by web/pending_uploads.py; bulk: the list's acts on
  many items, a new access level and tombstones, each asking why).
- orcid: "connect your ORCID iD" mailed to a creator of an item (a page of the item's).
- copies: copies from other Archives and the files fixity found changed.
- resolver: the Archives registered at this resolver.
- registry: the metadata registry's schemas and fields, which librarians add to.
- profiles: submission profiles per collection and their controlled vocabularies (the item
  form follows its collection's: web/profile_fields.py).
- communities: the tree of communities and collections (items are moved and mapped on
  their own page).
- access: requests for a copy and their answers, secret links, the audit trail of reads.
- accounts: people's accounts and their ways in; disabling one (why), erasing the
  personal data of those who asked (LGPD).
- fulltext: each file's text extraction, the flagged ones (empty, garbage, failed) first.
- usage: the usage dashboards (COUNTER R5.1 metrics per month), the COUNTER API's customers
  and their keys.
- review: roles per collection, workflows, submissions with their tasks and history (read
  only).
"""
from . import (  # noqa: F401  (register their ModelAdmins)
    access,
    accounts,
    communities,
    fulltext,
    items,
    profiles,
    registry,
    resolver,
    review,
    usage,
)

# Nothing: the admin is reached through its site, never imported by another package.
__all__: list[str] = []
