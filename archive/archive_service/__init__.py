"""The archive service (RTC-11 §9): urlRequest, inclusionConfirmationRequest and
acknowledgment answered from the ORM.

- answers: MontarResposta (Algorithm 1) and the URL lists (Algorithm 2).
- requests: the requests read strictly (Tables 8.9, 8.11).
- views: the HTTP edge.
"""
__all__ = ["answers", "views"]
