"""Settings, all from the environment (every one in docs/operators/settings.md).

The defaults are the embedded set-up of `make run`: SQLite, files under ./media, Celery tasks
run in-process, and placeholder identification settings that a system check warns about.
"""
from __future__ import annotations

import os
import tempfile
import warnings
from datetime import timedelta
from pathlib import Path

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

from .env import (
    env_address,
    env_bool,
    env_cache,
    env_choice,
    env_database,
    env_email,
    env_emails,
    env_granularity,
    env_group_roles,
    env_hostname,
    env_int,
    env_ip,
    env_json,
    env_list,
    env_networks,
    env_peer_tokens,
    env_rate,
    env_seconds,
    env_str,
    env_time_zone,
    env_url_prefix,
    env_urls,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=False)
_DEV_SECRET_KEY = "dev-only-insecure-key-set-SECRET_KEY-in-production"
SECRET_KEY = env_str("SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off (on your own machine: export DEBUG=1)")
    warnings.warn("SECRET_KEY is not set: using the development key", stacklevel=1)
    SECRET_KEY = _DEV_SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",  # figures on pages grouped as the reader writes them (1.234)
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "archive",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every answer, the admin's and the error pages' included.
    "csp.middleware.CSPMiddleware",
    # Early: a NUL in a path or query is refused before any view or query sees it.
    "archive.web.middleware.RefuseNulMiddleware",
    # A read on a connection the database dropped is run again; a write is a 503.
    "archive.web.middleware.DroppedConnectionMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # A second session, only for SAML's requests in flight (djangosaml2): its cookie is
    # SameSite=None, so that it comes back with the identity provider's cross-site POST to
    # /saml/acs/, which the site's own (Lax) session cookie does not.
    "djangosaml2.middleware.SamlSessionMiddleware",
    # The reader's language: the switcher's cookie, else Accept-Language, else LANGUAGE_CODE.
    # URLs carry no language prefix, so persistent URLs and item URLs never change with it.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF, the first to read a form's body: an oversized upload becomes a 413 page.
    "archive.web.middleware.UploadLimitsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Who acts in the PREMIS events a request's writes record (its signed-in person).
    "archive.web.middleware.ActingPersonMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A path that is a persistent URL of a valid IBI resolves before the route that took it
    # (a repository name whose subdomain is a route word, items/x/2013/…): archive/urls.py.
    "archive.urls.PersistentUrlsBeforeRoutes",
    # Last, as django-axes asks: it answers a locked-out login (archive/web/throttling.py).
    "axes.middleware.AxesMiddleware",
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's ModelBackend that also takes an email address, in any case, for the username:
    # staff sign in to the admin by username as before, people by their address (/accounts/).
    "archive.accounts.backends.EmailBackend",
]
# A campus directory (LDAP) for campuses without CAFe (archive/accounts/directory.py): set
# IBI_LDAP_URI and people sign in at /accounts/login/ with their campus username and password,
# after the local accounts; unset, only local accounts (and `make run` needs no directory).
IBI_LDAP_URI = env_str("IBI_LDAP_URI", "")
IBI_LDAP_EMAIL_ATTR = env_str("IBI_LDAP_EMAIL_ATTR", "mail")
IBI_LDAP_NAME_ATTR = env_str("IBI_LDAP_NAME_ATTR", "cn")
IBI_LDAP_GROUP_ROLES = env_group_roles("IBI_LDAP_GROUP_ROLES")
AUTH_LDAP_SERVER_URI = IBI_LDAP_URI
if IBI_LDAP_URI:
    import ldap
    from django_auth_ldap.config import (
        GroupOfNamesType,
        GroupOfUniqueNamesType,
        LDAPSearch,
        PosixGroupType,
    )

    if not IBI_LDAP_URI.startswith(("ldap://", "ldaps://", "ldapi://")):
        raise ImproperlyConfigured(f"IBI_LDAP_URI={IBI_LDAP_URI!r}: give ldap://host or "
                                   "ldaps://host")
    _user_filter = env_str("IBI_LDAP_USER_FILTER", "(uid=%(user)s)")
    if "%(user)s" not in _user_filter:
        raise ImproperlyConfigured("IBI_LDAP_USER_FILTER: name the username as %(user)s, "
                                   "e.g. (uid=%(user)s)")
    if not env_str("IBI_LDAP_USER_BASE"):
        raise ImproperlyConfigured("IBI_LDAP_USER_BASE: give the DN people are found under, "
                                   "e.g. ou=people,dc=uni,dc=br")
    AUTH_LDAP_BIND_DN = env_str("IBI_LDAP_BIND_DN", "")
    AUTH_LDAP_BIND_PASSWORD = env_str("IBI_LDAP_BIND_PASSWORD", "")
    AUTH_LDAP_USER_SEARCH = LDAPSearch(env_str("IBI_LDAP_USER_BASE"), ldap.SCOPE_SUBTREE,
                                       _user_filter)
    if env_str("IBI_LDAP_GROUP_BASE"):
        AUTH_LDAP_GROUP_SEARCH = LDAPSearch(
            env_str("IBI_LDAP_GROUP_BASE"), ldap.SCOPE_SUBTREE,
            env_str("IBI_LDAP_GROUP_FILTER", "(objectClass=*)"))
        AUTH_LDAP_GROUP_TYPE = {  # the object class, in any case
            "groupofnames": GroupOfNamesType, "groupofuniquenames": GroupOfUniqueNamesType,
            "posixgroup": PosixGroupType,
        }[env_choice("IBI_LDAP_GROUP_TYPE", "groupofnames",
                     ["groupofnames", "groupofuniquenames", "posixgroup"])]()
    AUTH_LDAP_START_TLS = env_bool("IBI_LDAP_START_TLS", False)
    _ldap_timeout = env_int("IBI_LDAP_TIMEOUT", 5, low=1, high=60)
    AUTH_LDAP_CONNECTION_OPTIONS = {ldap.OPT_NETWORK_TIMEOUT: _ldap_timeout,
                                    ldap.OPT_TIMEOUT: _ldap_timeout, ldap.OPT_REFERRALS: 0}
    AUTHENTICATION_BACKENDS.append("archive.accounts.directory.DirectoryBackend")
# Accounts of people who are not staff (archive/accounts/): sign-up, sign-in, password reset.
# /submit/ and every page behind login_required send a stranger here.
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/accounts/"
LOGOUT_REDIRECT_URL = "/"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in ("UserAttributeSimilarityValidator", "MinimumLengthValidator",
                 "CommonPasswordValidator", "NumericPasswordValidator")
]
# Links mailed to prove an address or to set a new password work this long (Django's setting,
# also read by archive/accounts/ for verification links), in seconds.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 86400, low=600, high=30 * 86400)
# Signing in with ORCID (archive/accounts/orcid.py; issue 36, 2): offered only when the three
# are set. The base URL is ORCID's (https://orcid.org) or its sandbox's
# (https://sandbox.orcid.org); the client is the one ORCID registered for this site, its
# redirect URI /accounts/orcid/callback/. IBI_ORCID_API_URL reads a record (its verified
# address), by default ORCID's public API beside the base URL; IBI_ORCID_CA_FILE, a CA bundle
# to trust for them instead of the system's.
_ORCID_BASE = env_urls("IBI_ORCID_BASE_URL")
if len(_ORCID_BASE) > 1:
    raise ImproperlyConfigured("IBI_ORCID_BASE_URL names one URL, e.g. https://orcid.org")
IBI_ORCID_BASE_URL = _ORCID_BASE[0] if _ORCID_BASE else ""
IBI_ORCID_API_URL = (env_urls("IBI_ORCID_API_URL") or ("",))[0]
IBI_ORCID_CLIENT_ID = env_str("IBI_ORCID_CLIENT_ID", "")
IBI_ORCID_CLIENT_SECRET = env_str("IBI_ORCID_CLIENT_SECRET", "")
IBI_ORCID_CA_FILE = env_str("IBI_ORCID_CA_FILE", "")
_ORCID_SET = [bool(v) for v in (IBI_ORCID_BASE_URL, IBI_ORCID_CLIENT_ID,
                                IBI_ORCID_CLIENT_SECRET)]
if any(_ORCID_SET) and not all(_ORCID_SET):
    raise ImproperlyConfigured("ORCID sign-in needs IBI_ORCID_BASE_URL, IBI_ORCID_CLIENT_ID "
                               "and IBI_ORCID_CLIENT_SECRET together (or none of them)")
# How long a "connect your ORCID iD" link mailed to a creator works.
IBI_ORCID_INVITATION_DAYS = env_int("IBI_ORCID_INVITATION_DAYS", 30, low=1, high=365)

# --- Institutional login: a SAML 2.0 service provider in a federation such as CAFe -----------
# (archive/accounts/saml.py, federation.py; docs/operators/settings.md). Off unless
# IBI_SAML_METADATA names the federation's metadata aggregate (a file or an https URL), which
# must be signed by the certificate IBI_SAML_METADATA_CERT and carry a validUntil to come.
IBI_SAML_METADATA = env_str("IBI_SAML_METADATA", "")
IBI_SAML_METADATA_CERT = env_str("IBI_SAML_METADATA_CERT", "")
IBI_SAML_METADATA_EVERY = env_int("IBI_SAML_METADATA_EVERY", 3600, low=60, high=7 * 86400)
IBI_SAML_METADATA_MAX_BYTES = env_int("IBI_SAML_METADATA_MAX_BYTES", 64 * 1024 * 1024,
                                      low=1024, high=1024 * 1024 * 1024)
# The Metadata Query service (draft-young-md-query) that answers for one identity provider at
# a time (archive/accounts/mdq.py): its base URL, the certificate its answers are signed with,
# how long an answer without cacheDuration is used, and "sha1" to ask by {sha1}<hex>.
IBI_SAML_MDQ = env_str("IBI_SAML_MDQ", "")
IBI_SAML_MDQ_CERT = env_str("IBI_SAML_MDQ_CERT", "")
IBI_SAML_MDQ_CACHE = env_int("IBI_SAML_MDQ_CACHE", 3600, low=60, high=7 * 86400)
IBI_SAML_MDQ_TRANSFORM = env_choice("IBI_SAML_MDQ_TRANSFORM", "", ["", "sha1"])
# This service provider: its entityID (by default its metadata's URL on IBI_SAML_BASE_URL),
# the key and certificate it signs requests and decrypts assertions with.
IBI_SAML_BASE_URL = str(env_str("IBI_SAML_BASE_URL", "http://localhost:8000")).rstrip("/")
IBI_SAML_ENTITY_ID = env_str("IBI_SAML_ENTITY_ID", f"{IBI_SAML_BASE_URL}/saml/metadata/")
IBI_SAML_KEY = env_str("IBI_SAML_KEY", "")
IBI_SAML_CERT = env_str("IBI_SAML_CERT", "")
# What the federation's registry (CAFe's) asks of a service provider's metadata (JSON): the
# organization in pt-BR and English, {"pt-br": {"name": …, "display_name": …, "url": …},
# "en": {…}}, and its contacts, [{"type": "technical" | "support" | …, "name": …,
# "email": …}]; checked by archive.E104.
IBI_SAML_ORGANIZATION = env_json("IBI_SAML_ORGANIZATION", {})
IBI_SAML_CONTACTS = env_json("IBI_SAML_CONTACTS", [])
# The attribute that names a person, per identity provider's entityID (JSON):
# eduPersonPrincipalName (the default), subject-id or pairwise-id.
IBI_SAML_IDENTIFIERS = env_json("IBI_SAML_IDENTIFIERS", {})
# Affiliation values (brEduAffiliationType, eduPersonAffiliation) → names of the groups that
# hold roles in collections (JSON), e.g. {"student": ["Submitters"]}.
IBI_SAML_AFFILIATION_GROUPS = env_json("IBI_SAML_AFFILIATION_GROUPS", {})
XMLSEC1 = env_str("XMLSEC1", "/usr/bin/xmlsec1")

ROOT_URLCONF = "ibirepo.urls"
WSGI_APPLICATION = "ibirepo.wsgi.application"
# Persistent URLs end in "!", "+", ":" …: never let CommonMiddleware append a slash.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "archive.site.context.page",
                "archive.site.context.roles",
            ],
        },
    },
]

# --- Database: SQLite file by default, PostgreSQL in production ----------------------------
DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes SQLite's write lock at BEGIN: minting then serialises across processes.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not :memory:, so tests can run several OS processes against one test database;
    # one per test run, so that two runs at once never share it.
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"ibirepo-test-{os.getpid()}.sqlite3")}
# A PostgreSQL read replica (docs/operators/deployment.md): the reads that may lag — search,
# browse, the home page's figures, OAI-PMH, statistics — go there (archive/db/replica.py);
# everything else, every write, and those reads whenever it is down, go to the primary.
if env_str("DATABASE_REPLICA_URL"):
    DATABASES["replica"] = env_database("DATABASE_REPLICA_URL", "")
    if DATABASES["replica"]["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_REPLICA_URL names a PostgreSQL read replica "
                                   "(postgres://…)")
    # A replica that does not answer costs a lagging read this much at most, once per
    # RETRY_SECONDS; a closed port is refused at once. A connect_timeout in the URL wins.
    DATABASES["replica"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 2)
    # In a test run, Django points the alias at the test database (on the primary, or what
    # the replica replays of it) and creates nothing there; archive/db/replica.py reads the
    # primary then, since a test's data lives in its own transaction.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["archive.db.replica.ReplicaRouter"]
# PostgreSQL announces answer-cache changes to listening connections
# (archive/db/changes.py);
# off: each request reads the change token instead (behind a transaction-mode pooler).
DATABASE_LISTEN = env_bool("DATABASE_LISTEN", True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache: counts of rate limits (archive/web/throttling.py) ---------------------------------
# Redis when CACHE_URL (or REDIS_URL) names one, so that every process shares the counts; a
# per-process local memory otherwise (enough for `make run`, not for several workers). An
# operation waits for Redis at most CACHE_TIMEOUT seconds; a Redis down or hung is replaced by
# each process's own memory until it answers again (archive/db/cache.py).
CACHES = {"default": env_cache("CACHE_URL", env_str("REDIS_URL"),
                               env_seconds("CACHE_TIMEOUT", 0.25, low=0.01, high=30))}

# --- Rate limits (docs/api/index.md, errors) -------------------------------------------------
# Trusted proxies in front of the site: 0 means the client is REMOTE_ADDR and X-Forwarded-For,
# which any client can write, is ignored.
NUM_PROXIES = env_int("NUM_PROXIES", 0, low=0, high=10)
# …believed only on connections from these addresses (nginx on this machine by default): a
# client reaching gunicorn directly is counted by its own address whatever it writes.
IBI_TRUSTED_PROXIES = env_networks("IBI_TRUSTED_PROXIES", ["127.0.0.0/8", "::1/128"])
# The admin login: django-axes locks an IP out after AXES_FAILURE_LIMIT wrong passwords for
# AXES_COOLOFF_TIME, counted in the database, answered 429 with Retry-After.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, low=1, high=1000)
AXES_COOLOFF_TIME = timedelta(seconds=env_int("AXES_COOLOFF_SECONDS", 900, low=1,
                                              high=30 * 86400))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no banner on every command's stderr (commands print one line to people)
AXES_LOCKOUT_CALLABLE = "archive.web.errors.lockout_response"
# The same client address as the API's throttles (NUM_PROXIES): behind nginx, not nginx's.
AXES_CLIENT_IP_CALLABLE = "archive.web.throttling.client_ip"
# Wrong registration keys sent to the resolver service, per client IP (DRF's rate syntax).
IBI_RESOLVER_SERVICE_FAILURES = env_rate("IBI_RESOLVER_SERVICE_FAILURES", "10/hour")
# Every request to the resolver service, per client IP: Archives send a few (inclusion,
# switching on and off); each one with a key costs a PBKDF2, right keys included.
IBI_RESOLVER_SERVICE_RATE = env_rate("IBI_RESOLVER_SERVICE_RATE", "60/minute")

# --- Celery: no broker → tasks run eagerly in-process ---------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The schedules below are read in the site's TIME_ZONE (an embargo ends at local midnight).
CELERY_TIMEZONE = env_time_zone("TIME_ZONE", "UTC")
# A broker that hangs costs a publisher (never a request: archive/web/nudges.py) or a worker
# this long per attempt, not forever. Longer than the worker's one-second wait for messages.
IBI_BROKER_TIMEOUT = env_seconds("CELERY_BROKER_TIMEOUT", 5.0, low=1.5, high=120)
CELERY_BROKER_CONNECTION_TIMEOUT = IBI_BROKER_TIMEOUT
# A message a worker took and never acknowledged (the worker killed mid-task: tasks are
# acknowledged late) goes back to the queue this long after it was taken, not after kombu's
# hour (Redis and SQS only; RabbitMQ returns it when the connection drops). Every task is safe
# to run twice, and those that may last longer hold a lease the second run respects (copy
# jobs, acknowledgments owed, answers mailed, a fixity run): a message put back while its
# first run still works is acknowledged and does nothing.
IBI_TASK_REDELIVERY = env_int("IBI_TASK_REDELIVERY", 60, low=10, high=86400)
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_timeout": IBI_BROKER_TIMEOUT,
                                   "socket_connect_timeout": IBI_BROKER_TIMEOUT,
                                   "visibility_timeout": IBI_TASK_REDELIVERY}
# A copy job's worker is gone when its heartbeat is this old: another takes the job over
# (archive/preservation/jobs.py); the beat looks for such jobs twice as often.
IBI_COPY_LEASE = env_int("IBI_COPY_LEASE", 30, low=2, high=3600)
# How often the beat sends the acknowledgments owed that no nudge sent (the broker was down)
# and those due again after a failure (archive/resolver/outbox.py).
IBI_ACKNOWLEDGMENTS_EVERY = env_int("IBI_ACKNOWLEDGMENTS_EVERY", 30, low=1, high=3600)
# How often the beat mails the answers to requests for a copy that no nudge mailed (the broker
# was down) and those due again after the mail server failed (archive/access/services.py).
IBI_ACCESS_MAILS_EVERY = env_int("IBI_ACCESS_MAILS_EVERY", 60, low=1, high=3600)
# How often the beat runs the checks before review that no nudge ran (the broker was down, a
# worker died mid-check): archive/review/checking.py, submissions whose checks are due.
IBI_SUBMISSION_CHECKS_EVERY = env_int("IBI_SUBMISSION_CHECKS_EVERY", 300, low=1, high=86400)
# The virus scan of a submission's files (archive/review/tools.py): ClamAV's clamscan (Debian's
# clamav), or clamdscan to ask a running clamd; its signature database (empty: ClamAV's own,
# which freshclam keeps). Where clamscan is missing or has no database, a file is "not
# scanned": a warning, which stops a submission (in a collection whose workflow makes the
# virus scan blocking) only when IBI_VIRUS_SCAN_REQUIRED is true.
IBI_CLAMSCAN = env_str("IBI_CLAMSCAN", "clamscan")
IBI_CLAMAV_DB = env_str("IBI_CLAMAV_DB", "")
IBI_VIRUS_SCAN_REQUIRED = env_bool("IBI_VIRUS_SCAN_REQUIRED", False)
# What is inside the files (archive/fulltext/, issue 37): each new file's text, page by page,
# and its thumbnail, read by a worker once its deposit commits (off: only `manage.py
# extracttext` and `manage.py thumbnails` do, and the beat's run of what is due); OCR of the
# pages without text (Tesseract, Portuguese and English); the wall-clock limit of one job in
# the sandbox (a file's text, a page's OCR, a thumbnail), past which it is killed and the file
# fails with that reason; how many pages without text of one file are read by OCR at most
# (at ~4 pages a minute a 2 000-page scan would hold a worker for hours; the pages past it
# are left unread and the file flagged with their number); how often the beat extracts what
# a lost nudge left.
IBI_EXTRACT_TEXT = env_bool("IBI_EXTRACT_TEXT", True)
# Each new file's format read from its content (PRONOM, archive/preservation/formats.py) by a
# worker once its deposit commits; the beat's identify_due (every IBI_EXTRACT_EVERY) does the
# rest, and `manage.py identifyformats` any time.
IBI_IDENTIFY_FORMATS = env_bool("IBI_IDENTIFY_FORMATS", True)
IBI_OCR = env_bool("IBI_OCR", True)
IBI_OCR_MAX_PAGES = env_int("IBI_OCR_MAX_PAGES", 300, low=1, high=10_000)
IBI_EXTRACT_TIMEOUT = env_seconds("IBI_EXTRACT_TIMEOUT", 300.0, low=5, high=3600)
IBI_EXTRACT_EVERY = env_int("IBI_EXTRACT_EVERY", 300, low=10, high=86400)
# `celery -A ibirepo worker --beat` (or a separate `celery beat`) runs these.
CELERY_BEAT_SCHEDULE = {
    # Shortly after midnight: every embargo whose first open day has come is lifted
    # (archive/access/tasks.py; `manage.py liftembargoes` does the same at any time).
    "lift-embargoes": {"task": "archive.tasks.lift_embargoes",
                       "schedule": crontab(hour=0, minute=5)},
    # Then the approved submissions whose collection publishes on a day that has come
    # (archive/review/tasks.py; `manage.py publishapproved` does the same at any time).
    "publish-approved": {"task": "archive.tasks.publish_approved",
                         "schedule": crontab(hour=0, minute=10)},
    "refresh-copies": {"task": "archive.tasks.refresh_copies",
                       "schedule": crontab(minute=41)},
    # Day 1 of each month, at noon in TIME_ZONE (past the UTC month's end anywhere): the
    # month that ended rolled up for the COUNTER reports
    # (archive/usage/tasks.py; `manage.py counter_rollup` does the same at any time).
    "roll-up-months": {"task": "archive.tasks.roll_up_months",
                       "schedule": crontab(day_of_month=1, hour=12, minute=20)},
    "check-fixity": {"task": "archive.tasks.check_fixity",
                     "schedule": crontab(hour=3, minute=17)},
    # What is kept in the database for a worker: acknowledgments owed (a nudge lost, a retry
    # due), copy jobs asked for or left by a worker killed mid-copy.
    "send-acknowledgments": {"task": "archive.tasks.send_acknowledgments",
                             "schedule": float(IBI_ACKNOWLEDGMENTS_EVERY)},
    "mail-access-answers": {"task": "archive.tasks.mail_access_answers",
                            "schedule": float(IBI_ACCESS_MAILS_EVERY)},
    # Librarians told of new requests: at once (nudged), then in digests (IBI_REQUEST_DIGEST_
    # MINUTES) and after a mail server's failure.
    "mail-request-notices": {"task": "archive.tasks.mail_request_notices",
                             "schedule": float(IBI_ACCESS_MAILS_EVERY)},
    # Mails to account holders (verification, password reset) that the mail server refused.
    "mail-account-mails": {"task": "archive.tasks.mail_account_mails",
                           "schedule": float(IBI_ACCESS_MAILS_EVERY)},
    # The review's mails (archive/review/notices.py): to whoever must act next, nudged at
    # each transition, then here for what a lost nudge or a mail server's failure left; and
    # each reviewer's digest of what waits in their pools, every morning.
    "mail-review-notices": {"task": "archive.tasks.mail_review_notices",
                            "schedule": float(IBI_ACCESS_MAILS_EVERY)},
    "review-digest": {"task": "archive.tasks.review_digest",
                      "schedule": crontab(hour=7, minute=0)},
    "erase-access-requests": {"task": "archive.tasks.erase_access_requests",
                              "schedule": crontab(hour=2, minute=47)},
    "resume-copy-jobs": {"task": "archive.tasks.resume_copy_jobs",
                         "schedule": max(1.0, IBI_COPY_LEASE / 2)},
    # Every hour, the uploads abandoned past IBI_UPLOAD_EXPIRY go with their bytes
    # (archive/deposit/tasks.py; `manage.py fsck` sweeps the same).
    "sweep-uploads": {"task": "archive.tasks.sweep_uploads",
                      "schedule": crontab(minute=23)},
    "check-submissions": {"task": "archive.tasks.check_submissions",
                          "schedule": float(IBI_SUBMISSION_CHECKS_EVERY)},
    "extract-text": {"task": "archive.tasks.extract_due",
                     "schedule": float(IBI_EXTRACT_EVERY)},
    "identify-formats": {"task": "archive.tasks.identify_due",
                         "schedule": float(IBI_EXTRACT_EVERY)},
    # The federation's metadata aggregate, fetched and checked again (archive/accounts/
    # federation.py; `manage.py refreshsamlmetadata` does the same at any time).
    "refresh-saml-metadata": {"task": "archive.tasks.refresh_saml_metadata",
                              "schedule": float(IBI_SAML_METADATA_EVERY)},
}
# Fixity (archive/preservation/fixity.py, docs/operators/preservation.md): every file hashed
# again within IBI_FIXITY_PERIOD_DAYS, the daily task taking ceil(files / period) files and
# ceil(bytes / period) bytes, the longest-unverified first, never more than
# IBI_FIXITY_DAILY_BYTES a day (what the machine may read and hash: an alarm when the
# inventory needs more); every check kept IBI_FIXITY_RETENTION_DAYS.
# LOCKSS (archive/preservation/lockss.py): the addresses of Rede Cariniana's crawlers (IPs or
# networks), which no rate limit slows (archive/web/throttling.py), and what the manifests'
# rel="license" link names (empty: the manifests' own permission statement).
IBI_LOCKSS_CRAWLERS = env_networks("IBI_LOCKSS_CRAWLERS", [])
IBI_LOCKSS_LICENSE_URL = env_str("IBI_LOCKSS_LICENSE_URL", "")
# The ADMINS (with the librarians) get the fixity alarm's mail; Django also mails them a
# server error's report.
ADMINS = [(address, address) for address in env_emails("ADMINS")]
IBI_FIXITY_PERIOD_DAYS = env_int("IBI_FIXITY_PERIOD_DAYS", 90, low=1, high=3650)
IBI_FIXITY_DAILY_BYTES = env_int("IBI_FIXITY_DAILY_BYTES", 500 * 10**9, low=1, high=10**18)
IBI_FIXITY_RETENTION_DAYS = env_int("IBI_FIXITY_RETENTION_DAYS", 1830, low=1, high=36500)
if IBI_FIXITY_RETENTION_DAYS < IBI_FIXITY_PERIOD_DAYS:
    raise ImproperlyConfigured("IBI_FIXITY_RETENTION_DAYS must keep at least one period of "
                               "checks (IBI_FIXITY_PERIOD_DAYS)")

# --- Files: local disk by default, S3 when a bucket is configured --------------------------
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media"))).resolve()
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles"))).resolve()
STATICFILES_DIRS = [BASE_DIR / "static"]
AWS_STORAGE_BUCKET_NAME = env_str("AWS_STORAGE_BUCKET_NAME")
if AWS_STORAGE_BUCKET_NAME:
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": env_str("AWS_S3_ENDPOINT_URL"),
            "region_name": env_str("AWS_S3_REGION_NAME"),
            # SigV4 presigned URLs (downloads redirect to them): every S3 region and MinIO take
            # them; "path" addressing suits MinIO and other S3-compatible servers.
            "signature_version": "s3v4",
            "addressing_style": env_str("AWS_S3_ADDRESSING_STYLE"),
            "file_overwrite": False,
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": env_int("AWS_QUERYSTRING_EXPIRE", 300, low=10, high=604800),
        },
    }
else:
    # Django's FileSystemStorage, each file written beside and linked under its name when
    # whole: never a partial file in col/ (archive/deposit/storage.py).
    _default_storage = {
        "BACKEND": "archive.deposit.storage.AtomicFileSystemStorage",
        "OPTIONS": {"location": MEDIA_ROOT, "file_permissions_mode": 0o640},
    }
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Every upload, whatever its size, streams to a temporary file, hashed on the way in, within
# IBI_MAX_FILE_SIZE and IBI_MAX_FILES (archive/deposit/uploads.py); the handler counts files,
# so Django's own cap is off. The temporary files live in a folder of ours, not the system's
# /tmp: a process killed mid-upload leaves its file there, and `manage.py fsck` sweeps it.
# Created at start (ArchiveConfig.ready), beside MEDIA_ROOT by default.
IBI_UPLOAD_TEMP_DIR = Path(env_str("IBI_UPLOAD_TEMP_DIR",
                                   str(MEDIA_ROOT.parent / "upload-tmp"))).resolve()
FILE_UPLOAD_TEMP_DIR = str(IBI_UPLOAD_TEMP_DIR)
FILE_UPLOAD_HANDLERS = ["archive.deposit.uploads.ChecksummingUploadHandler"]
DATA_UPLOAD_MAX_NUMBER_FILES = None
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2000
# Behind nginx (deploy/nginx.conf): downloads from the local disk are handed to nginx with
# X-Accel-Redirect under this internal location, so gunicorn never streams file bytes.
IBI_ACCEL_REDIRECT = env_url_prefix("IBI_ACCEL_REDIRECT")

# --- Identification subsystem (generation standard) ----------------------------------------
IBI_PLACEHOLDER_HOSTNAME = "archive.localhost"
IBI_PLACEHOLDER_IP = "127.0.0.1"
IBI_HOSTNAME = env_hostname("IBI_HOSTNAME", IBI_PLACEHOLDER_HOSTNAME)
IBI_PORT = env_int("IBI_PORT", 80, low=1, high=65535)
IBI_IP = env_ip("IBI_IP", IBI_PLACEHOLDER_IP)
IBI_IP_PORT = env_int("IBI_IP_PORT", 800, low=1, high=65535)
IBI_GRANULARITY = env_granularity("IBI_GRANULARITY", "1")
ARCHIVE_ADDRESS = env_address("ARCHIVE_ADDRESS")
IBI_PLATFORM_SOFTWARE = env_str("IBI_PLATFORM_SOFTWARE", "")
# The repository's name, as the admin's header shows it; unset, "IBI repository" in the
# librarian's language (archive/apps.py).
IBI_REPOSITORY_NAME = env_str("IBI_REPOSITORY_NAME", "")
# COUNTER R5.1 (issue 39, docs/api/counter.md): the platform's name in the reports, the
# namespace of its proprietary identifiers (a letter, then 2 to 18 letters, digits, _ . /),
# the publisher named for its items.
IBI_COUNTER_PLATFORM = env_str("IBI_COUNTER_PLATFORM", IBI_REPOSITORY_NAME or "IBI repository")
IBI_COUNTER_NAMESPACE = env_str("IBI_COUNTER_NAMESPACE", "ibi")
IBI_COUNTER_PUBLISHER = env_str("IBI_COUNTER_PUBLISHER", IBI_COUNTER_PLATFORM)
# The public usage summary (/usage/): off unless the operator allows it.
IBI_USAGE_PUBLIC = env_bool("IBI_USAGE_PUBLIC", False)
# How long an acknowledgment may quote a urlkey of ours and still be counted (seconds).
IBI_URLKEY_MAX_AGE = env_int("IBI_URLKEY_MAX_AGE", 3600, low=1, high=30 * 86400)
# Base URL of the resolver our persistent URLs name; default: this deployment is its own resolver.
IBI_RESOLVER_URL = env_str("IBI_RESOLVER_URL")
# URLs per sitemap page (/sitemaps/items-<k>.xml); the protocol allows at most 50 000.
IBI_SITEMAP_PAGE_SIZE = env_int("IBI_SITEMAP_PAGE_SIZE", 50_000, low=1, high=50_000)

# --- Resolver (RTC-11 §7-§8; docs/api/persistent-urls.md) -----------------------------------
# Each included Archive gets IBI_RESOLVER_TIMEOUT seconds to answer a urlRequest; one persistent
# URL (all its hops) gets IBI_RESOLVER_DEADLINE; an answer longer than IBI_RESOLVER_MAX_RESPONSE
# bytes is dropped. The resolver never connects to an address in IBI_RESOLVER_DENY_NETWORKS
# (link-local, cloud metadata and private addresses by default; loopback stays allowed). A
# campus federation whose Archives live on 10.x sets its own list without 10.0.0.0/8.
IBI_RESOLVER_TIMEOUT = env_seconds("IBI_RESOLVER_TIMEOUT", 3.0, low=0.05, high=60)
IBI_RESOLVER_DEADLINE = env_seconds("IBI_RESOLVER_DEADLINE", 8.0, low=0.05, high=300)
# At most IBI_RESOLVER_MAX_WAITING resolutions of one process wait for other Archives at once;
# one more is answered 503 with Retry-After at once, so readers stalled on a slow Archive never
# take every thread of a worker (deploy/gunicorn.conf.py sets half its threads).
IBI_RESOLVER_MAX_WAITING = env_int("IBI_RESOLVER_MAX_WAITING", 4, low=1, high=10000)
# …of which one client address may hold this many (in one process); one more is a 429 with
# Retry-After, so that a few clients cannot take every place (archive/resolver/fanout.py).
IBI_RESOLVER_MAX_WAITING_PER_CLIENT = env_int("IBI_RESOLVER_MAX_WAITING_PER_CLIENT", 1, low=1,
                                              high=10000)
# What the resolver remembers of other Archives (archive/resolver/memory.py, in Django's cache:
# shared by every process on Redis): where an IBI was found (which Archive gave its Original's
# URL), a hint of whom to ask first, for IBI_RESOLVER_CACHE_TTL seconds (never an answer: that
# Archive is asked at every resolution); that every included Archive answered and none holds
# an IBI, for IBI_RESOLVER_NEGATIVE_TTL seconds, the only staleness the resolver adds. An IBI
# dated more than IBI_RESOLVER_FUTURE_SKEW seconds after this resolver's clock is not asked of
# any Archive (RTC-10 hands out no future date; the margin covers local times and clocks ahead).
IBI_RESOLVER_CACHE_TTL = env_seconds("IBI_RESOLVER_CACHE_TTL", 86400, low=0, high=30 * 86400)
IBI_RESOLVER_NEGATIVE_TTL = env_seconds("IBI_RESOLVER_NEGATIVE_TTL", 60, low=0, high=3600)
IBI_RESOLVER_FUTURE_SKEW = env_seconds("IBI_RESOLVER_FUTURE_SKEW", 86400, low=0,
                                       high=366 * 86400)
# An Archive that failed IBI_RESOLVER_BREAKER_FAILURES times in a row is not asked for
# IBI_RESOLVER_BREAKER_SECONDS, then probed by one request (archive/resolver/health.py).
IBI_RESOLVER_BREAKER_FAILURES = env_int("IBI_RESOLVER_BREAKER_FAILURES", 5, low=1, high=1000)
IBI_RESOLVER_BREAKER_SECONDS = env_seconds("IBI_RESOLVER_BREAKER_SECONDS", 60, low=0.01,
                                           high=86400)
# Requests to other Archives in flight at once per process, and so its sockets to them
# (archive/protocol/client.py); a round with more Archives asks the rest as places free up.
IBI_RESOLVER_MAX_CONNECTIONS = env_int("IBI_RESOLVER_MAX_CONNECTIONS", 100, low=1, high=10000)
# §8.2 step 5: every resolution is acknowledged to the Archive that gave the URL, whoever the
# reader. On (the operator's choice): a User-Agent on COUNTER's robots list is not acknowledged.
IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS = env_bool("IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS", False)
IBI_RESOLVER_MAX_RESPONSE = env_int("IBI_RESOLVER_MAX_RESPONSE", 65536, low=1024, high=2**24)
IBI_RESOLVER_DENY_NETWORKS = env_networks("IBI_RESOLVER_DENY_NETWORKS", [
    "169.254.0.0/16", "fe80::/10",  # link-local, where 169.254.169.254 answers on most clouds
    "fd00:ec2::254/128", "100.100.100.200/32", "168.63.129.16/32", "192.0.0.192/32",
    # Private networks, where the services behind the firewall live: RFC 1918, IPv6 unique
    # local addresses (RFC 4193) and carrier-grade NAT (RFC 6598).
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "100.64.0.0/10",
])
# Other Archives that copies, migration and hand-over may talk to, besides those registered
# at this resolver (RegisteredArchive addresses): base URLs, e.g. https://archive-b.example.org.
IBI_PEER_ARCHIVES = env_urls("IBI_PEER_ARCHIVES")
# The API token this Archive shows each of them when it copies (their `manage.py createpeer`):
# `<base URL>=<token>,…`. Without one, only items whose files are all open can be copied.
IBI_PEER_TOKENS = env_peer_tokens("IBI_PEER_TOKENS")
# This Archive's side: the administrator's address sent with inclusionRequest (default
# admin@IBI_HOSTNAME), and the resolver and key `switchon`/`switchoff` use when not given.
IBI_ARCHIVE_ADMIN_EMAIL = env_str("IBI_ARCHIVE_ADMIN_EMAIL", "")
IBI_SWITCHON_RESOLVER = env_str("IBI_SWITCHON_RESOLVER")
IBI_SWITCHON_KEY = env_str("IBI_SWITCHON_KEY")

# --- Deposit limits -------------------------------------------------------------------------
# A deposit without Idempotency-Key is the same deposit as one of the same content (fields and
# files' checksums) by the same user this many seconds before: answered with the first item
# (archive/deposit/idempotency.py). 0: every deposit makes an item.
IBI_DEPOSIT_REPEAT_WINDOW = env_int("IBI_DEPOSIT_REPEAT_WINDOW", 600, low=0, high=86400)
IBI_MAX_FILE_SIZE = env_int("IBI_MAX_FILE_SIZE", 2 * 1024**3, low=1, high=2**50)
IBI_MAX_FILES = env_int("IBI_MAX_FILES", 100, low=1, high=100_000)
# Resumable uploads (tus 1.0 at /api/uploads/, behind the admin's uploader): an upload left
# alone this many seconds (since its last byte) expires, and `manage.py fsck` sweeps it. The
# admin's uploader sends a file in requests of IBI_UPLOAD_CHUNK_SIZE bytes (0: one request),
# each resumed from the last byte the server has.
IBI_UPLOAD_EXPIRY = env_int("IBI_UPLOAD_EXPIRY", 24 * 3600, low=60, high=30 * 86400)
IBI_UPLOAD_CHUNK_SIZE = env_int("IBI_UPLOAD_CHUNK_SIZE", 0, low=0, high=2**40)
# Bytes one librarian's uploads not yet deposited may declare together (their Upload-Length,
# counted at creation, until deposited, deleted or expired): past it a new upload is refused
# (413), so no one fills the upload folder by declaring. 0: no bound.
IBI_UPLOAD_QUOTA = env_int("IBI_UPLOAD_QUOTA", 20 * 1024**3, low=0, high=2**50)

# `manage.py harvest` (archive/dspace/harvest.py): at most this many pages of a list a run
# (then it stops, and the next run goes on from there), asked this many seconds apart, so that
# a source whose list never ends is never asked at full speed for ever.
IBI_HARVEST_MAX_PAGES = env_int("IBI_HARVEST_MAX_PAGES", 10_000, low=1, high=10**7)
IBI_HARVEST_PAGE_DELAY = env_seconds("IBI_HARVEST_PAGE_DELAY", 1.0, low=0, high=3600)

# --- OAI-PMH (/oai) -------------------------------------------------------------------------
# Records per ListRecords/ListIdentifiers response: a page costs a few queries whatever its
# size, so large pages amortise a request (a 1 000-record oai_dc page is about 1.5 MB).
# OAI_PAGE_SIZE is the old name, still read.
IBI_OAI_PAGE_SIZE = env_int("IBI_OAI_PAGE_SIZE", env_int("OAI_PAGE_SIZE", 1000, low=1,
                                                         high=10_000), low=1, high=10_000)
# Identify's adminEmail; default admin@IBI_HOSTNAME
OAI_ADMIN_EMAIL = env_str("OAI_ADMIN_EMAIL", "")

# --- Access: embargoes, secret links, requests for a copy (archive/access/) -----------------
# Days a secret link sent with an approved request for a copy works.
IBI_ACCESS_LINK_DAYS = env_int("IBI_ACCESS_LINK_DAYS", 14, low=1, high=3650)
# Days a request for a copy keeps its reader's personal data (LGPD): then the nightly task
# `erase-access-requests` erases them (archive/access/services.py `erase_old_requests`).
IBI_ACCESS_REQUEST_DAYS = env_int("IBI_ACCESS_REQUEST_DAYS", 365, low=1, high=36500)
# Who is told of a new request for a copy when its item's collection names no request
# handlers: these addresses (comma-separated); unset, every active staff account with an
# email that may answer requests (archive/access/notices.py).
IBI_REQUEST_HANDLERS = env_emails("IBI_REQUEST_HANDLERS")
# A handler mailed a notice less than this many minutes ago gets the next requests together,
# in one digest, once the minutes are over (the beat's `mail-request-notices`); 0: each at once.
IBI_REQUEST_DIGEST_MINUTES = env_int("IBI_REQUEST_DIGEST_MINUTES", 15, low=0, high=24 * 60)
# Mail (answers to requests for a copy) through Django's email framework: smtp://… in
# production, the server's output (console://) under DEBUG unless EMAIL_URL says otherwise.
_email = env_email("EMAIL_URL", "console://" if DEBUG else "smtp://localhost:25")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST", "localhost")
EMAIL_PORT = _email.get("EMAIL_PORT", 25)
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _email.get("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = _email.get("EMAIL_TIMEOUT", 30)  # a silent server never holds a worker long
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", f"repository@{IBI_HOSTNAME}")

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "archive.web.authentication.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's three, its JSON parser refusing JSON nested too deep (a 400, not a 500).
    "DEFAULT_PARSER_CLASSES": ["archive.api.parsers.JSONParser",
                               "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_SCHEMA_CLASS": "archive.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "archive.api.exceptions.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["archive.web.throttling.WriteThrottle",
                                 "archive.web.throttling.ReadThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "write": env_rate("API_THROTTLE_WRITES", "120/minute"),
        # Anonymous reads per address: a whole campus may share one (NAT).
        "read": env_rate("API_THROTTLE_READS", "1200/minute"),
        "token_failure": env_rate("API_THROTTLE_TOKEN_FAILURES", "10/hour"),
        "resolver_service": IBI_RESOLVER_SERVICE_FAILURES,
        "resolver_service_requests": IBI_RESOLVER_SERVICE_RATE,
        # Wrong secret link tokens per client address (guessing), and requests for a copy.
        "access_token_failure": env_rate("IBI_ACCESS_TOKEN_FAILURES", "20/hour"),
        "access_request": env_rate("IBI_ACCESS_REQUESTS", "5/hour"),
        # Accounts (archive/site/accounts.py): forms that mail an address (sign-up, a new
        # verification link, a password reset), per client address and per address mailed;
        # wrong passwords per email address (per client address: django-axes).
        "account_client": env_rate("IBI_ACCOUNT_REQUESTS", "20/hour"),
        "account_mail": env_rate("IBI_ACCOUNT_MAILS", "3/hour"),
        "account_login": env_rate("IBI_ACCOUNT_LOGIN_FAILURES", "10/hour"),
    },
    "NUM_PROXIES": NUM_PROXIES,
}
SPECTACULAR_SETTINGS = {
    # archive/api/urls.py's any_id: an integer id, whatever the path holds answered in JSON.
    "PATH_CONVERTER_OVERRIDES": {"any_id": int},
    "TITLE": "IBI repository API",
    "DESCRIPTION": "Deposit and read items identified by IBI (RTC-10/RTC-11).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # File fields are binary in requests and URLs in responses: separate components.
    "COMPONENT_SPLIT_REQUEST": True,
    # The documentation page works offline: Swagger UI from drf-spectacular-sidecar.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # An item's state and a submission's are both "state": each its own name.
    "ENUM_NAME_OVERRIDES": {"SubmissionStateEnum": "archive.models.review.Submission.State",
                            "StateEnum": "archive.models.items.Item.State",
                            "CheckNameEnum": "archive.models.review.CheckName",
                            "CheckOutcomeEnum": "archive.models.review.SubmissionCheck.Outcome"},
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "archive.api.schema.closed_inputs",
                             "archive.api.schema.no_nul_in_queries"],
}

# --- Time and language ----------------------------------------------------------------------
# Pages, the admin, messages and API errors speak Brazilian Portuguese and English (locale/);
# LANGUAGE_CODE is what a reader whose browser asks for neither gets.
LANGUAGES = [("pt-br", "Português (Brasil)"), ("en", "English")]
LANGUAGE_CODE = env_choice("LANGUAGE_CODE", "en", [code for code, _name in LANGUAGES])
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
LANGUAGE_COOKIE_SAMESITE = "Lax"
# Where the library is: the day an embargo ends and a secret link expires is a day there.
TIME_ZONE = CELERY_TIMEZONE
USE_I18N = True
USE_TZ = True

# --- Security: production mode is DEBUG off --------------------------------------------------
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
# SAML's own session (djangosaml2's middleware): SameSite=None, which browsers take only with
# Secure; over plain HTTP (`make run`) Lax, enough for an identity provider on the same site.
SAML_SESSION_COOKIE_SAMESITE = "None" if SESSION_COOKIE_SECURE else "Lax"
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# The resolution standard speaks plain http:// between Archives and resolvers, and persistent
# URLs are http:// by definition: only the admin, the API and accounts (passwords, the session)
# are forced onto HTTPS.
# A repository name whose subdomain is "admin" or "api" (the Archive at x.admin mints
# admin/x/2013/09.04.12.27.57) is a persistent URL too: its path, a word then the year and the
# date, is no page of the admin or the API (archive/urls.py PersistentUrlsBeforeRoutes).
SECURE_REDIRECT_EXEMPT = [r"^(?!admin/|api/|accounts/)",
                          r"^(?:admin|api|accounts)/[^/]+/[0-9]{4,}/[0-9]{2}\.[0-9]{2}\.[0-9]{2}\.[0-9]{2}"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, low=0, high=10**9)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
# A strict Content-Security-Policy (django-csp) on every page, the admin and the API's
# documentation included: scripts and styles only from this site's own files (no inline script
# or style anywhere), no plug-ins from elsewhere; the landing page previews a file of this site
# (or of the S3 bucket downloads redirect to) in an <iframe>/<object>, which only this site may
# frame. tests/test_page_checks.py holds every page to it in a browser.
_FILE_ORIGINS = ["'self'"]
if AWS_STORAGE_BUCKET_NAME:
    _endpoint = env_str("AWS_S3_ENDPOINT_URL")
    _FILE_ORIGINS.append("/".join(_endpoint.split("/")[:3]) if _endpoint
                         else "https://*.amazonaws.com")
CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "object-src": _FILE_ORIGINS,
    "frame-src": _FILE_ORIGINS,
    "frame-ancestors": ["'self'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # httpx logs every request URL at INFO: inclusionRequest URLs carry registration keys and
    # acknowledgments carry readers' IPs (RTC-11 puts both in the query string).
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}
