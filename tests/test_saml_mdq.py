"""An identity provider's metadata by the Metadata Query protocol (archive/accounts/mdq.py),
from a stand-in MDQ service on loopback (tests/servers.py FakeMdq) whose entities this test
signs with xmlsec1 (tests/saml_idp.py): a good entity is what the sign-in uses, cached for
its cacheDuration; one unsigned, signed by another key, expired or of another entity is
never used, and the last good one stays in use while it is valid.

The SP, the federation's aggregate (the discovery list) and the identity providers are
tests/test_saml.py's."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from archive.accounts import federation, mdq
from tests import saml_idp as stand_in
from tests.servers import FakeMdq
from tests.test_saml import (  # noqa: F401 (fixtures)
    IDP,
    OTHER_IDP,
    Browser,
    federation_kept,
    nothing_made,
    refused,
    visitor,
    world,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

ACCEPT = "application/samlmetadata+xml"
QUOTED = "/entities/https%3A%2F%2Fidp.uni.br%2Fidp"


@pytest.fixture(scope="module")
def entities(world):  # noqa: F811
    """IDP's entity as MDQ answers for it: good (an hour's cacheDuration), unsigned, signed
    by a stranger, expired; and OTHER_IDP's, good, to be served for IDP."""
    folder, keys = world["folder"], world["keys"]
    keys["mdq"] = stand_in.keypair(folder, "mdq")
    soon, past = datetime.now(UTC) + timedelta(days=1), datetime.now(UTC) - timedelta(hours=1)
    idp = stand_in.idp_descriptor(IDP, keys["idp"], scope="uni.br",
                                  names={"pt-br": "Universidade Exemplo"})
    other = stand_in.idp_descriptor(OTHER_IDP, keys["other_idp"], scope="ufscar.br",
                                    names={"pt-br": "UFSCar"})
    return {
        "good": stand_in.entity(idp, valid_until=soon, signer=keys["mdq"], folder=folder,
                                name="good", cache_duration="PT1H"),
        "unsigned": stand_in.entity(idp, valid_until=soon, signer=None, folder=folder,
                                    name="unsigned"),
        "stranger": stand_in.entity(idp, valid_until=soon, signer=keys["stranger"],
                                    folder=folder, name="stranger"),
        "expired": stand_in.entity(idp, valid_until=past, signer=keys["mdq"], folder=folder,
                                   name="expired"),
        "another entity": stand_in.entity(other, valid_until=soon, signer=keys["mdq"],
                                          folder=folder, name="other"),
    }


@pytest.fixture(scope="module")
def service():
    with FakeMdq() as server:
        yield server


@pytest.fixture
def mdq_on(service, world, settings, federation_kept):  # noqa: F811
    settings.IBI_SAML_MDQ = service.url
    settings.IBI_SAML_MDQ_CERT = str(world["keys"]["mdq"].cert)
    service.asked.clear()
    service.entities.clear()
    cache.clear()
    return service


def signs_in(visitor) -> None:  # noqa: F811
    answer = visitor.post(visitor.response())
    assert answer.status_code == 302, answer.content
    assert User.objects.get(email="ana.silva@uni.br").is_active


@pytest.mark.parametrize(("transform", "path"), [
    ("", QUOTED),
    ("sha1", "/entities/%7Bsha1%7D" + hashlib.sha1(IDP.encode()).hexdigest()),
])
def test_the_sign_in_uses_the_idps_entity_from_mdq_cached_for_its_cache_duration(
        visitor, mdq_on, entities, settings, transform, path):  # noqa: F811
    settings.IBI_SAML_MDQ_TRANSFORM = transform
    mdq_on.entities[IDP] = entities["good"]
    signs_in(visitor)
    # Asked once, as the protocol says, when the request was sent; the answer read from
    # the cache.
    assert mdq_on.asked == [(path, ACCEPT)]
    kept = mdq.entity(IDP)
    assert kept.provider["scopes"] == ["uni.br"] and mdq_on.asked == [(path, ACCEPT)]
    # Its cacheDuration (an hour) over, it is asked again.
    mdq.entity(IDP, now=datetime.now(UTC) + timedelta(minutes=61))
    assert len(mdq_on.asked) == 2


@pytest.mark.parametrize("bad", ["unsigned", "stranger", "expired", "another entity"])
def test_an_entity_unsigned_wrongly_signed_expired_or_another_is_never_used(
        visitor, mdq_on, entities, bad, caplog):  # noqa: F811
    mdq_on.entities[IDP] = entities[bad]
    answer = visitor.client.get("/saml/login/", {"idp": IDP}, secure=True)
    refused(answer, status=404)
    assert mdq_on.asked == [(QUOTED, ACCEPT)]
    assert "from MDQ refused" in caplog.text
    with pytest.raises(federation.AggregateRefused):
        mdq.entity(IDP)
    nothing_made()


def test_a_refused_answer_leaves_the_last_good_entity_in_use_while_it_is_valid(
        world, visitor, mdq_on, entities, caplog):  # noqa: F811
    mdq_on.entities[IDP] = entities["good"]
    good = mdq.entity(IDP)
    mdq_on.entities[IDP] = entities["stranger"]
    later = datetime.now(UTC) + timedelta(hours=2)  # past its cacheDuration: asked again
    assert mdq.entity(IDP, now=later) == good
    assert "the last good one kept" in caplog.text
    signs_in(Browser(world))
    # Past its validUntil, no entity is good: the sign-in is refused.
    with pytest.raises(federation.AggregateRefused):
        mdq.entity(IDP, now=datetime.now(UTC) + timedelta(days=2))


def test_an_idp_the_discovery_list_lacks_is_not_asked_of_mdq(visitor, mdq_on):  # noqa: F811
    answer = visitor.client.get("/saml/login/", {"idp": "https://idp.evil.example/idp"},
                                secure=True)
    assert answer.status_code == 400
    assert mdq_on.asked == []


def test_single_logout_reads_the_idps_entity_from_mdq_too(visitor, mdq_on, entities):  # noqa: F811
    mdq_on.entities[IDP] = entities["good"]
    signs_in(visitor)
    answer = visitor.client.post("/saml/logout/", secure=True)
    assert answer.status_code == 302 and answer["Location"].startswith(f"{IDP}/slo?")
    assert "_auth_user_id" not in visitor.client.session
    assert len(mdq_on.asked) == 1  # the cached entity of the provider the person came from
