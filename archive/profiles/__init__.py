"""Submission profiles (issue 34, point 3): which fields a collection's items have.

- check.py: a deposit's or a change's values checked against a profile, pure (no database):
  a field outside it, a required one missing, a non-repeatable one repeated, a value not in
  its controlled list, an authority id of the wrong kind; the one check the admin and the API
  share (through archive/deposit/services.py)
- cnpq.py: CNPq's knowledge-area codes and their check digit, pure; the table is data/
- builtin.py: the built-in profiles, "padrão" and MTD-BR's "tese", and their vocabularies
- selectors.py: a collection's profile as check.py reads it (one query or two)
- services.py: the built-in profiles put back where they are missing (after a flush)

The models are archive/models/profiles.py; migration 0035 made the built-in profiles.
"""
__all__ = ["builtin", "check", "cnpq", "selectors", "services"]
