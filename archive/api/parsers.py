"""The API's JSON parser: DRF's, whose refusals also cover JSON nested too deep.

Python's parser recurses once per level: a body of a thousand nested arrays raised
RecursionError, which is no ValueError, so DRF's parser let it through as a 500. Here it is a
400 like any unreadable body, and so is a body that parses but nests deeper than
deposit/values.py MAX_JSON_DEPTH, which the next recursive walk over it (the Idempotency-Key's
fingerprint, a field's validation) would fail on instead.
"""
from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from ..deposit import values


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
        else:
            if values.json_depth(data) <= values.MAX_JSON_DEPTH:
                return data
        raise ParseError(_("JSON parse error - arrays and objects nested deeper than "
                           "%(depth)d levels") % {"depth": values.MAX_JSON_DEPTH})
