"""The archive service (RTC-11 §9): urlRequest, inclusionConfirmationRequest and
acknowledgment answered from the ORM.

- answers: MontarResposta (Algorithm 1) and the URL lists (Algorithm 2), as pairs.
- relations: the relations of Table 9.5 answered, and what they lead to for one item.
- urlkeys: the keys of the answers, and the acknowledgments that bring them back.
- requests: the requests read strictly (Tables 8.9, 8.11).
- views: the HTTP edge.
"""
__all__ = ["answers", "relations", "requests", "urlkeys", "views"]
