"""The archive service (RTC-11 §9): urlRequest, inclusionConfirmationRequest and
acknowledgment answered from the ORM.

- answers: MontarResposta (Algorithm 1) and the URL lists (Algorithm 2).
- requests: the requests read strictly (Tables 8.9, 8.11).
- answer_cache: answers kept per process until an item or a file changes.
- views: the HTTP edge.
"""
__all__ = ["answer_cache", "answers", "views"]
