"""Accounts of people who are not staff (issue 35, 1): who they are, how they prove their
address, and the mails owed to them. Nothing here assumes a password: signing up with one is
one way in (the site's forms, archive/site/accounts.py); an institutional login (SAML, ORCID,
LDAP) is another that calls the same `services.create_account`, its address already verified.

- services: accounts made and verified, mails owed (a verification link, a password reset,
  word that an address is taken) and mailed, kept until a mail server takes them
- selectors: an account by address, its verified state, the roles a person holds
- tokens: the signed, expiring links that verify an address (pure: django.core.signing)
- backends: Django's ModelBackend that also takes an email address, in any case
- directory: signing in with a campus directory (LDAP, django-auth-ldap), the person linked
  as every institutional login links them, the directory's groups mapped to Django groups
- orcid: signing in with ORCID (OAuth 2, authlib): the authorization URL, the code traded
  for the iD, its holder's name and verified address
- invitations: "connect your ORCID iD" mailed to a creator, and used by a sign-in with ORCID
- federation: the SAML federation's metadata aggregate (CAFe), fetched, checked, kept
- mdq: an identity provider's metadata by the Metadata Query protocol, checked and cached
- saml: signing in through a SAML identity provider of the federation (pysaml2)
- tasks: the beat's retry of the mails a mail server refused, the federation's metadata
  refreshed

The models are archive/models/accounts.py.
"""
__all__ = ["backends", "directory", "federation", "invitations", "mdq", "orcid", "saml",
           "selectors", "services", "tasks", "tokens"]
