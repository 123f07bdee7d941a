"""Schemathesis hooks for transferd's contract run (CI): tus PATCH bodies are raw bytes, which schemathesis has no
serializer for by default."""
import schemathesis


@schemathesis.serializer("application/offset+octet-stream")
def offset_octet_stream(ctx, value):
    if isinstance(value, bytes):
        return value
    return str(value).encode()


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    """A valid `wait` makes the event reads long-poll for up to 30 s when nothing happens, and nothing happens
    here: most of the run's time went to that waiting. At most 1 s still checks the long poll's answer; invalid
    values go as generated. The long poll itself is tested in the suite, with events arriving."""
    query = case.query or {}
    wait = query.get("wait")
    if isinstance(wait, bool):
        return
    if isinstance(wait, (int, float)) and wait > 1:
        query["wait"] = 1
    elif isinstance(wait, str) and wait.strip().isdigit() and int(wait) > 1:
        query["wait"] = "1"
