"""The public site: pages, downloads and citations for readers.

- views: home, search, an item's landing, files and metadata pages.
- downloads: /col/<repository name>/doc/<file>.
- access: the 403 page of a closed file, and /items/<repository name>/request, the form a
  reader asks for a copy with.
- months: the month names Brazilian Portuguese writes in lower case (catalogue only).
- metadata_formats: /items/<repository name>/metadata/<format>, an item's record per format.
- indexing: /robots.txt and the sitemaps, paged for millions of items.
- linksets: an item's FAIR Signposting linkset (RFC 9264), text and JSON.
- legacy: DSpace's old links (/handle/…, /bitstreams/<uuid>/download …), 301 to the item.
- communities: the pages of communities and collections, and the collections' feeds.
- accounts: /accounts/, the pages of people who are not staff: sign-up, verification of
  their address, sign-in and out, passwords, their own page.
- orcid: /accounts/orcid/, signing in with ORCID, and the "connect your ORCID iD" link.
- saml: /saml/, institutional login (CAFe): the discovery page, the request to the
  institution, its answer, single logout, this service provider's metadata.
- submit: /submit/, the submitter's own pages (issue 35): their submissions, and the form of
  one, through the review's services.
- review: the reviewer's queue (/review/) and a task's page, for the holders of roles.
- thumbnails: a file's thumbnail, for whom the access policy lets see it.
- lockss: /lockss/, the LOCKSS manifests of Rede Cariniana (one per collection and year).
- usage: /usage/, the repository's usage per month in public, when the operator allows it.
"""
__all__ = ["access", "accounts", "communities", "downloads", "indexing", "legacy", "linksets",
           "lockss", "metadata_formats", "orcid", "review", "saml", "submit", "thumbnails",
           "usage", "views"]
