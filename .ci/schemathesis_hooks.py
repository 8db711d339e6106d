"""Schemathesis hooks for .ci/api-fuzz (SCHEMATHESIS_HOOKS): a resumable upload's PATCH body,
application/offset+octet-stream (tus 1.0), goes on the wire as the bytes it is, the way
schemathesis sends application/octet-stream."""
from __future__ import annotations

import schemathesis


@schemathesis.serializer("application/offset+octet-stream")
def offset_stream(ctx, value) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()
