"""An S3-compatible server that checks signatures, for transferd's object-storage tests: moto's (PyPI
`moto[server]`), with request authentication on, and faults on demand.

    s3_server.py

Starts moto on 127.0.0.1 (a free port), spends the unauthenticated calls moto allows on IAM (a user, its access
key, a policy allowing s3:*), so that from then on every request must be signed with that key, and prints one JSON
line: {"port", "accessKeyId", "secretAccessKey"}. Runs until it is terminated or its parent process ends (the test
process shares one server among its tests, each with buckets of its own).

Paths of its own, unsigned, are for the tests, each about one bucket (path style): `POST /_buckets?bucket=B`
creates it; `POST /_faults?bucket=B&count=N[&match=TEXT][&status=S][&hang=1]` adds a rule that answers the next N
requests for it (those whose `METHOD path?query` contains TEXT) with 503 SlowDown, as a store under load does, or
with S (403: AccessDenied), or never (`hang`: the request is held, as a store that stopped answering holds it);
rules are tried in the order they were added. `GET /_requests?bucket=B` lists the requests for it since the start as
JSON `[{"method", "path", "query"}]`.
"""

import json
import logging
import os
import signal
import threading
import urllib.parse

# Read by moto when it is imported: the first three requests need no signature, every later one does.
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

import boto3  # noqa: E402
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

lock = threading.Lock()
state = {"faults": {}, "requests": []}
# Set at SIGTERM; a hanging request waits for it.
stopped = threading.Event()


def bucket_of(path):
    return path.lstrip("/").split("/", 1)[0]


def with_faults(app):
    def handle(environ, start_response):
        path, query = environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", "")
        if path in ("/_buckets", "/_faults", "/_requests"):
            parameters = urllib.parse.parse_qs(query)
            bucket = parameters["bucket"][0]
            if path == "/_buckets":
                s3.create_bucket(Bucket=bucket)
            elif path == "/_faults":
                rule = {
                    "count": int(parameters["count"][0]),
                    "match": parameters.get("match", [""])[0],
                    "status": int(parameters.get("status", ["503"])[0]),
                    "hang": parameters.get("hang", ["0"])[0] == "1",
                }
                with lock:
                    state["faults"].setdefault(bucket, []).append(rule)
            else:
                with lock:
                    body = json.dumps([r for r in state["requests"] if bucket_of(r["path"]) == bucket]).encode()
                start_response("200 OK", [("Content-Type", "application/json")])
                return [body]
            start_response("204 No Content", [])
            return [b""]
        bucket = bucket_of(path)
        with lock:
            state["requests"].append({"method": environ["REQUEST_METHOD"], "path": path, "query": query})
            request = f"{environ['REQUEST_METHOD']} {path}?{query}"
            fault = next((rule for rule in state["faults"].get(bucket, []) if rule["count"] > 0 and rule["match"] in request), None)
            if fault:
                fault["count"] -= 1
        if fault:
            environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            if fault["hang"]:
                stopped.wait()
            if fault["status"] == 403:
                start_response("403 Forbidden", [("Content-Type", "application/xml")])
                return [b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"]
            start_response("503 Slow Down", [("Content-Type", "application/xml")])
            return [b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"]
        return app(environ, start_response)

    return handle


logging.getLogger("werkzeug").setLevel(logging.ERROR)
server = make_server("127.0.0.1", 0, with_faults(DomainDispatcherApplication(create_backend_app)), threaded=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
endpoint = f"http://127.0.0.1:{port}"

iam = boto3.client("iam", endpoint_url=endpoint, aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
iam.create_user(UserName="transferd")
key = iam.create_access_key(UserName="transferd")["AccessKey"]
iam.put_user_policy(
    UserName="transferd",
    PolicyName="s3",
    PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}),
)
s3 = boto3.client(
    "s3", endpoint_url=endpoint, aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]
)
print(json.dumps({"port": port, "accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]}), flush=True)
signal.signal(signal.SIGTERM, lambda *_: stopped.set())
parent = os.getppid()
while not stopped.wait(1) and os.getppid() == parent:
    pass
server.shutdown()
