"""Typed readers of environment variables for settings.py.

Each reader fails loudly with ImproperlyConfigured on a value it cannot use, naming the
variable, so a typo in production stops the start instead of running with a silent default.
"""
from __future__ import annotations

import ipaddress
import json
import os
from decimal import Decimal, InvalidOperation
from urllib.parse import urlsplit

import dj_database_url
import dj_email_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str | None = None) -> str | None:
    value = _raw(name)
    return default if value in (None, "") else value


def env_url_prefix(name: str) -> str:
    """An absolute URL path that starts and ends with "/", e.g. /_protected/; "" when unset."""
    value = env_str(name, "")
    if value and not (value.startswith("/") and value.endswith("/") and len(value) > 2
                      and value.isascii() and " " not in value and "?" not in value):
        raise ImproperlyConfigured(f"{name}={value!r}: give a path such as /_protected/")
    return value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false, yes/no)")


def env_choice(name: str, default: str, choices: list[str]) -> str:
    """One of choices, any case: `LANGUAGE_CODE=PT-BR` gives "pt-br"."""
    value = (env_str(name, default) or default).lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r}: choose one of {', '.join(choices)}")
    return value


def env_int(name: str, default: int, *, low: int, high: int) -> int:
    value = _raw(name)
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None
    if not low <= number <= high:
        raise ImproperlyConfigured(f"{name}={number} is outside {low}–{high}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return default
    return [part.strip() for part in value.split(",") if part.strip()]


def env_json(name: str, default: dict) -> dict:
    """A JSON object, e.g. IBI_SAML_AFFILIATION_GROUPS='{"student": ["Submitters"]}'."""
    value = _raw(name)
    if not value:
        return default
    try:
        found = json.loads(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise ImproperlyConfigured(f"{name}: give a JSON object {{…}}")
    return found


def env_emails(name: str) -> list[str]:
    """Comma-separated email addresses (none when unset), each checked."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    found = env_list(name, [])
    for address in found:
        try:
            validate_email(address)
        except ValidationError:
            raise ImproperlyConfigured(f"{name}: {address!r} is not an email address") from None
    return found


def env_database(name: str, default: str) -> dict:
    url = env_str(name, default)
    try:
        # Persistent connections; a health check would cost a round trip per request, so it
        # is opt-in (DATABASE_HEALTH_CHECKS=1) for networks that drop idle connections.
        config = dj_database_url.parse(
            url, conn_max_age=60, conn_health_checks=env_bool("DATABASE_HEALTH_CHECKS", False))
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(f"{name} is not a database URL we can use: {exc}") from None
    if not config.get("ENGINE") or not config.get("NAME"):
        raise ImproperlyConfigured(f"{name} names no database")
    return config


def env_hostname(name: str, default: str) -> str:
    from archive.identifiers import ibi

    value = env_str(name, default)
    try:
        ibi.validate_hostname(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={value!r}: {exc}") from None
    return value.lower()


def env_ip(name: str, default: str) -> str:
    value = env_str(name, default)
    try:
        ipaddress.ip_address(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an IPv4 or IPv6 address") from None
    return value.lower()


def env_granularity(name: str, default: str) -> Decimal:
    value = env_str(name, default)
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise ImproperlyConfigured(f"{name}={value!r} is not a decimal number") from None
    # The generation standard allows a minute, a second or a power-of-ten fraction of it.
    if number != 60 and not (0 < number <= 1 and number == Decimal(1).scaleb(number.adjusted())):
        raise ImproperlyConfigured(f"{name}={value!r}: use 60, 1, 0.1, 0.01, 0.001 …")
    return number


def env_address(name: str) -> str | None:
    """host[:port] without scheme or path, as the resolution standard's archiveaddress."""
    value = env_str(name)
    if value is None:
        return None
    host, _, port = value.rpartition(":") if value.count(":") == 1 else (value, "", "")
    if any(c in value for c in "/?#@ \\") or not host or (port and not port.isdigit()):
        raise ImproperlyConfigured(f"{name}={value!r} is not host[:port]")
    return value.lower()


def env_seconds(name: str, default: float, *, low: float, high: float) -> float:
    """A duration in seconds, decimals allowed (``2.5``)."""
    value = _raw(name)
    if value in (None, ""):
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number of seconds") from None
    if not low <= number <= high:  # also refuses nan and inf
        raise ImproperlyConfigured(f"{name}={number} is outside {low}–{high} seconds")
    return number


def env_networks(name: str, default: list[str]) -> tuple[str, ...]:
    """Comma-separated IP networks (``169.254.0.0/16,fe80::/10``); an empty value is none."""
    texts = env_list(name, default)
    for text in texts:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {text!r} is not an IP network") from None
    return tuple(texts)


def env_urls(name: str) -> tuple[str, ...]:
    """Comma-separated http(s) base URLs without query or credentials, trailing slash dropped."""
    return _checked_urls(name, env_list(name, []))


def _checked_urls(name: str, texts: list[str]) -> tuple[str, ...]:
    urls = []
    for text in texts:
        parts = urlsplit(text)
        try:
            parts.port  # noqa: B018 (raises ValueError on a bad port)
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {text!r} has a bad port") from None
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
                or parts.fragment or parts.username or parts.password:
            raise ImproperlyConfigured(f"{name}: {text!r} is not a base URL such as "
                                       "https://archive.example.org")
        urls.append(text.rstrip("/"))
    return tuple(urls)


def env_cache(name: str, fallback: str | None, timeout: float) -> dict:
    """Django's cache: Redis at the URL in name (else fallback), each operation within
    `timeout` seconds and in this process's memory while Redis fails (archive/db/cache.py);
    else per-process memory."""
    url = env_str(name, fallback)
    if url is None:
        return {"BACKEND": "archive.db.cache.LocalCache"}
    if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise ImproperlyConfigured(f"{name}: {url.split('@')[-1]!r} is not a redis:// URL")
    return {"BACKEND": "archive.db.cache.FailoverRedisCache", "LOCATION": url,
            "OPTIONS": {"socket_timeout": timeout, "socket_connect_timeout": timeout}}


def env_rate(name: str, default: str) -> str:
    """A rate in DRF's syntax: <number>/<second|minute|hour|day>, e.g. 10/hour."""
    value = env_str(name, default)
    number, _, period = value.partition("/")
    if not number.isdigit() or int(number) < 1 or period[:1] not in ("s", "m", "h", "d"):
        raise ImproperlyConfigured(f"{name}={value!r} is not a rate such as 10/hour")
    return value


def env_email(name: str, default: str) -> dict[str, object]:
    """Django's email settings (EMAIL_BACKEND, EMAIL_HOST …) from a URL, read by dj-email-url:
    ``smtp://user:password@host:587?tls=True``, ``smtp://host:465?ssl=True``, ``console://``
    (mail written to the server's output), ``memory://``; anything else stops the start."""
    url = env_str(name, default)
    try:
        config = dj_email_url.parse(url)
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(f"{name} is not an email URL we can use: {exc}") from None
    if "EMAIL_BACKEND" not in config:
        raise ImproperlyConfigured(f"{name}: {url.split('@')[-1]!r} is not an email URL such "
                                   "as smtp://user:password@host:587?tls=True or console://")
    return {key: value for key, value in config.items()
            if value is not None and key != "EMAIL_FILE_PATH"}


def env_time_zone(name: str, default: str) -> str:
    """An IANA time zone name, e.g. America/Sao_Paulo."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    value = env_str(name, default)
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(f"{name}={value!r} is not a time zone such as "
                                   "America/Sao_Paulo") from None
    return value


def env_peer_tokens(name: str) -> dict[str, str]:
    """Comma-separated ``<base URL>=<token>`` pairs: the API token this Archive shows each
    other Archive when it copies from it (`manage.py createpeer` there makes one)."""
    found = {}
    for text in env_list(name, []):
        base, equals, token = text.rpartition("=")
        if not equals or not token.isalnum():
            raise ImproperlyConfigured(f"{name}: give <base URL>=<token>, e.g. "
                                       "https://archive-b.example.org=7def7ea3…")
        (url,) = _checked_urls(name, [base])
        found[url] = token
    return found


def env_group_roles(name: str) -> dict[str, list[str]]:
    """A JSON object naming, for each directory group's DN, the Django groups its members
    join: {"cn=library,ou=groups,dc=uni,dc=br": ["Librarians"]}; {} when unset."""
    value = _raw(name)
    if value in (None, ""):
        return {}
    try:
        found = json.loads(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: not JSON ({exc})") from None
    if not isinstance(found, dict) or not all(
            isinstance(dn, str) and dn.strip() and isinstance(names, list) and names
            and all(isinstance(group, str) and group.strip() for group in names)
            for dn, names in found.items()):
        raise ImproperlyConfigured(
            f'{name}: give {{"<group DN>": ["<Django group>", …], …}}')
    return {dn.strip(): [group.strip() for group in names] for dn, names in found.items()}
