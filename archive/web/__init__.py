"""What every HTTP edge shares: infrastructure, no standard here.

- middleware: the site-wide middleware (NUL refused, dropped database connections, upload
  limits), in the order settings.MIDDLEWARE runs them.
- errors: the error policy: a refusal in the caller's own terms (JSON, a pair list, text),
  429 with Retry-After, the admin login's lockout answer.
- throttling: the rate limits (API writes, failures per client address) and the client
  address every limit counts.
- authentication: DRF's token authentication, throttled per address.
- readers: who reads an item in a request (a privileged user, a secret link), for
  archive/access/policy.py.
- addresses: where this Archive was reached (the base of the links it hands out) and who
  reached it (the client addresses of Table 8.10).
- nudges: Celery tasks published off the request's thread, never waiting for the broker.
- pairs: RTC-11's pair lists as HTTP answers (text/plain, never cached), for both services.
- formats: a Record in a metadata format as an HTTP answer (the metadata pages, the
  resolver's content negotiation and tombstones).
- profile_fields: a collection's submission profile as form fields (the admin's item form,
  the submitter's form at /submit/).
- pending_uploads: the files waiting for a deposit or a submission, as a form's widget and
  field, with the resumable uploader (static/archive/uploader.js).
- wrapping: long IBIs and file names that wrap at their separators (<wbr>).
"""
__all__ = ["addresses", "authentication", "errors", "formats", "middleware", "nudges", "pairs",
           "pending_uploads", "profile_fields", "readers", "throttling", "wrapping"]
