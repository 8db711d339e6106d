"""What the repository's commands share.

The commands speak LANGUAGE_CODE: Django (since 2.1) no longer deactivates translations in
commands, so their output, their errors and the system checks come in the deployment's
language, `pt-br` for a Brazilian library, and `LANGUAGE_CODE=en manage.py …` gives one run in
English. Not the shell's LANG: a server's is rarely the library's (often C.UTF-8), and one setting
for the site's fallback and the operator's console keeps them alike. What scripts read stays as
it is in every language: `ibi mint` prints the two IBIs, `createlibrarian` ends with the token,
`switchon` prints the resolver's pairs, `importitems` writes its journal in JSON.
"""
from __future__ import annotations

import argparse

from django.core.management.base import BaseCommand, DjangoHelpFormatter


class _DocstringFormatter(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass


class DocumentedCommand(BaseCommand):
    """A command whose --help shows its module docstring as written: it documents a format."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs):
        return super().create_parser(prog_name, subcommand, formatter_class=_DocstringFormatter,
                                     **kwargs)
