#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver that decodes what it is sent with OpenTelemetry's own protobuf definitions
(`opentelemetry-proto`, pip), not with transferd's code. Prints its port, then serves on 127.0.0.1 until killed:

    POST /v1/traces  an ExportTraceServiceRequest (application/x-protobuf, optionally gzip); answers an empty response
    GET  /spans      every span received: [{"trace_id", "span_id", "parent_span_id", "name", "kind", "status",
                     "service", "attributes": {key: value}, "events": [name]}], ids in lowercase hex
"""
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler

from interop_server import serve

try:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
    from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
except ImportError:
    sys.exit("the opentelemetry-proto package is needed: pip install opentelemetry-proto")

lock = threading.Lock()
spans = []


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def attributes(key_values):
    return {item.key: value(item.value) for item in key_values}


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, data, content_type):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path != "/v1/traces" or self.headers.get("content-type") != "application/x-protobuf":
            return self.answer(415, b"", "text/plain")
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        received = []
        for resource_spans in request.resource_spans:
            service = attributes(resource_spans.resource.attributes).get("service.name")
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append({
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": Span.SpanKind.Name(span.kind),
                        "status": Status.StatusCode.Name(span.status.code),
                        "service": service,
                        "attributes": attributes(span.attributes),
                        "events": [event.name for event in span.events],
                    })
        with lock:
            spans.extend(received)
        self.answer(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")

    def do_GET(self):
        with lock:
            self.answer(200, json.dumps(spans).encode(), "application/json")

    def log_message(self, *args):
        pass


serve(Handler)
