"""The app's models, one module per area, all imported from here: `from archive.models import
Item` (as pretix's base/models/__init__.py gathers its own).

- items.py: identified items (IBI, state, editions, translations, access level)
- dublin_core.py: the Dublin Core elements (DcElement) and an item's values (DcValue)
- collections.py: communities and collections, the tree items belong to
- registry.py: the metadata registry, schemas and their fields (dc.contributor.advisor…)
- profiles.py: submission profiles per collection, their fields, controlled vocabularies
- files.py: their stored files
- languages.py: an item's language, a BCP 47 tag
- search.py: what search reads, kept by the database's triggers
- identifiers.py: the minting state (RTC-10) and the names items had before
- access.py: access rights, requests for a copy, secret links, reads of closed files
- usage.py: accesses counted (COUNTER R5.1), the months rolled up, the COUNTER API's keys
- deposit.py: Idempotency-Keys, pending uploads, staged writes
- federation.py: the Archives registered at this resolver, acknowledgments owed them
- preservation.py: copy jobs, preservation events (PREMIS) and their agents, fixity checks
- harvesting.py: the OAI-PMH repositories harvested here
- review.py: roles per collection, workflows, submissions, their tasks and transitions
- accounts.py: accounts of people who are not staff, the mails owed to them

Every model of the app is defined in this package (tests/test_suite.py checks it).
"""
from __future__ import annotations

from .access import AccessLink, AccessRead, AccessRequest, AccessRights, RequestNotice
from .accounts import Account, AccountMail, FederationMetadata, Identity, OrcidInvitation
from .collections import DEFAULT_COLLECTION, DEFAULT_COMMUNITY, Collection, Community, addresses
from .deposit import IdempotencyKey, PendingUpload, StagedWrite
from .dublin_core import DC_ELEMENTS, ORCID_FORM, Confidence, DcElement, DcValue
from .federation import OwedAcknowledgment, RegisteredArchive
from .files import Bundle, ItemFile
from .fulltext import FileExtraction, FilePage
from .harvesting import HarvestSource
from .identifiers import AlternateIdentifier, MintingState
from .items import Item
from .languages import LANGUAGE_TAG, normalize_language, validate_language
from .preservation import (
    PREMIS_EVENT_CODES,
    CopyJob,
    FixityCheck,
    PeerAccount,
    PremisAgent,
    PremisEvent,
)
from .profiles import (
    DEFAULT_PROFILE,
    THESIS_PROFILE,
    ProfileField,
    SubmissionProfile,
    Vocabulary,
    VocabularyTerm,
)
from .registry import MetadataField, MetadataSchema
from .review import (
    CheckName,
    CollectionRole,
    Provenance,
    ReviewNotice,
    Role,
    Submission,
    SubmissionCheck,
    Task,
    Transition,
    Workflow,
    accepted_formats,
)
from .search import ItemSearch, SearchVectorField
from .usage import (
    REQUEST_KINDS,
    AccessKind,
    AccessType,
    AcknowledgedUrlkey,
    CounterApiKey,
    CounterCustomer,
    DailyAccessCount,
    DailyFileCount,
    DailySearchCount,
    MonthlyCollectionUsage,
    MonthlyFileUsage,
    MonthlyItemUsage,
    UsageMonth,
)

__all__ = [
    "DC_ELEMENTS", "DEFAULT_COLLECTION", "DEFAULT_COMMUNITY", "DEFAULT_PROFILE",
    "LANGUAGE_TAG", "ORCID_FORM", "THESIS_PROFILE", "ProfileField", "SubmissionProfile",
    "Vocabulary", "VocabularyTerm",
    "AccessKind", "AccessLink", "DailySearchCount", "PeerAccount", "DailyFileCount",
    "MonthlyFileUsage", "AccessRead", "AccessRequest",
    "Collection", "Community",
    "RequestNotice", "addresses",
    "AccessRights", "AcknowledgedUrlkey", "AlternateIdentifier", "Confidence", "CopyJob",
    "DailyAccessCount", "DcElement", "DcValue", "HarvestSource", "IdempotencyKey", "Item",
    "Bundle", "ItemFile", "ItemSearch", "MetadataField", "MetadataSchema", "MintingState",
    "OwedAcknowledgment", "PendingUpload", "RegisteredArchive", "SearchVectorField",
    "StagedWrite", "normalize_language", "validate_language",
    "CollectionRole", "Provenance", "ReviewNotice", "Role", "Submission", "Task", "Transition",
    "Workflow", "Account", "AccountMail", "FederationMetadata", "Identity", "FileExtraction",
    "FilePage", "OrcidInvitation",
    "CheckName", "SubmissionCheck", "accepted_formats",
    "PREMIS_EVENT_CODES", "PremisAgent", "PremisEvent", "FixityCheck",
    "REQUEST_KINDS", "AccessType", "CounterApiKey", "CounterCustomer",
    "MonthlyCollectionUsage", "MonthlyItemUsage", "UsageMonth",
]
