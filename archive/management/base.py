"""What the repository's commands share."""
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
