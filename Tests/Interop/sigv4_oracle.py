"""botocore's SigV4 signer as an oracle for transferd's (TransferdS3Tests): signs each request it reads, offline.

    sigv4_oracle.py JOB.json

JOB.json: {"accessKeyId", "secretAccessKey", "region", "requests": [{"method", "url", "headers": [[name, value]],
"timestamp": "YYYYMMDDTHHMMSSZ", "payloadHash": hex or "UNSIGNED-PAYLOAD", "presignExpires": seconds or null}]}.
Prints a JSON list: for each request, the Authorization header botocore's S3SigV4Auth gives it, or the URL its
S3SigV4QueryAuth presigns. The payload hash is given rather than computed, because the requests were recorded as
they went to a server, without their bodies; the test checks the hashes against the bodies it sent.
"""

import datetime
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

with open(sys.argv[1]) as file:
    job = json.load(file)
credentials = Credentials(job["accessKeyId"], job["secretAccessKey"])

answers = []
for request in job["requests"]:
    moment = datetime.datetime.strptime(request["timestamp"], "%Y%m%dT%H%M%SZ")
    botocore.auth.get_current_datetime = lambda *args, moment=moment, **kwargs: moment
    aws = AWSRequest(method=request["method"], url=request["url"], headers=dict(request["headers"]))
    if request.get("presignExpires"):
        signer = botocore.auth.S3SigV4QueryAuth(credentials, "s3", job["region"], expires=request["presignExpires"])
        signer.add_auth(aws)
        answers.append({"url": aws.url})
    else:
        signer = botocore.auth.S3SigV4Auth(credentials, "s3", job["region"])
        signer.payload = lambda _request, given=request["payloadHash"]: given
        signer.add_auth(aws)
        answers.append({"authorization": aws.headers["Authorization"]})
json.dump(answers, sys.stdout)
