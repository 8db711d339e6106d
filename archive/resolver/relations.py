"""The relations of Table 9.5 as steps, and the verbs (Table 8.4) that ask for them. Pure.

    >>> steps(".lastedition.translation(pt).metadata(oai_dc)")
    (('lastedition', None), ('translation', 'pt'), ('metadata', 'oai_dc'))
    >>> verbs_of(steps(".lastedition.translation(pt)"))
    ('GetLastEdition', 'GetTranslation(pt)')
    >>> relation_of(steps(".translation(pt).metadata"))
    '.translation(pt).metadata'
"""
from __future__ import annotations

import re
from collections.abc import Sequence

Step = tuple[str, str | None]  # ("lastedition", None), ("translation", "pt-BR" | None) …

_STEP = re.compile(r"\.(lastedition|translation|metadata)(?:\(([^()]*)\))?")
_VERBS = {"lastedition": "GetLastEdition", "translation": "GetTranslation",
          "metadata": "GetMetadata"}


def steps(relation: str) -> tuple[Step, ...] | None:
    """``.lastedition.translation(pt).metadata(oai_dc)`` →
    ``(("lastedition", None), ("translation", "pt"), ("metadata", "oai_dc"))``; None if the
    text is no relation."""
    found, pos = [], 0
    while pos < len(relation):
        match = _STEP.match(relation, pos)
        if not match:
            return None
        found.append((match[1], match[2]))
        pos = match.end()
    return tuple(found)


def relation_of(given: Sequence[Step]) -> str:
    """The relation of Table 9.5 these steps spell: the inverse of `steps`."""
    return "".join(f".{kind}" + (f"({argument})" if argument else "") for kind, argument in given)


def verbs_of(wanted: Sequence[Step]) -> tuple[str, ...]:
    """The verbs (Table 8.4) that ask for these steps."""
    return tuple(_VERBS[kind] + (f"({argument})" if argument else "") for kind, argument in wanted)


def match(wanted: Sequence[Step], given: Sequence[Step]) -> tuple[str, ...] | None:
    """The languages a relation of an answer chose for the bare translation steps of wanted
    ("" for a bare pair), or None when it is not the relation wanted.

    A bare translation after a metadata step may be missing from the answer: metadata have no
    language variants of their own here, and an archive service reading the verb list "without
    repetition" (§8.2) turns ``+:+`` into ``+:`` anyway. The metadata themselves are then the
    original-language version, as for any bare ``+``.
    """
    chosen: list[str] = []
    position = 0
    for index, (kind, argument) in enumerate(wanted):
        given_kind, given_argument = given[position] if position < len(given) else ("", None)
        if kind == given_kind and (
                (kind == "translation" and argument is None)
                or (argument or "") == (given_argument or "")):
            if kind == "translation" and argument is None:
                chosen.append(given_argument or "")
            position += 1
        elif kind == "translation" and argument is None and any(
                k == "metadata" for k, _ in wanted[:index]):
            chosen.append("")
        else:
            return None
    return tuple(chosen) if position == len(given) else None
