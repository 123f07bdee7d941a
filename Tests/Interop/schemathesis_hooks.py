"""Schemathesis hooks for transferd's contract run (CI): tus PATCH bodies are raw bytes, which schemathesis has no
serializer for by default."""
import schemathesis


@schemathesis.serializer("application/offset+octet-stream")
def offset_octet_stream(ctx, value):
    if isinstance(value, bytes):
        return value
    return str(value).encode()
