import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TransferdTestSupport

@testable import TransferdS3

/// Every kind of request the client sends, signed by it and by botocore (`Tests/Interop/sigv4_oracle.py`) alike:
/// the requests are made for real against moto's server, which accepts them, and recorded on their way; botocore
/// then signs what was recorded, at the same time, with the same key. Keys that moto cannot take (it checks a path it
/// decodes first, and refuses `+`, `=`, `&`, `$` or `ü` whoever signs them) and virtual-hosted addressing are
/// compared without a server.
@Suite struct SigV4InteropTests {
    private struct Job: Encodable {
        struct Request: Encodable {
            let method: String
            let url: String
            let headers: [[String]]
            let timestamp: String
            let payloadHash: String
            let presignExpires: Int?
        }
        let accessKeyId: String
        let secretAccessKey: String
        let region: String
        let requests: [Request]
    }

    private struct Answer: Decodable {
        let authorization: String?
        let url: String?
    }

    @Test func everyRequestKindSignsAsBotocoreDoes() async throws {
        try await S3ClientTests.withBucket { server, bucket in
            // setup: a client whose requests are recorded, at a fixed time (to the second) that the presigned URL shares
            let recorder = RecordingTransport(client: .shared)
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let client = S3Client(
                bucket: S3Bucket(
                    endpoint: URL(string: server.endpoint)!,
                    region: "us-east-1",
                    name: bucket,
                    pathStyle: true
                ),
                credentials: S3Credentials(accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey),
                transport: recorder,
                now: { now }
            )
            let key = "in/2026 Q4/report_1.bin"
            let (whole, part) = (S3ClientTests.bytes(10_000), S3ClientTests.bytes(5 << 20))

            // act: each request kind, accepted by a server that checks signatures
            try await client.put(key, bytes: whole, contentType: "application/octet-stream")  // PUT
            let upload = try await client.createMultipartUpload("multi/part.bin")  // POST ?uploads
            let first = try await client.uploadPart("multi/part.bin", upload: upload, number: 1, bytes: part)  // PUT ?partNumber&uploadId
            _ = try await client.completeMultipartUpload("multi/part.bin", upload: upload, parts: [first])  // POST ?uploadId
            _ = try await client.get(key, range: 0..<100).body.collect(upTo: 1000)  // GET with Range
            _ = try await client.head(key)  // HEAD
            let abandoned = try await client.createMultipartUpload("multi/abandoned.bin")
            try await client.abortMultipartUpload("multi/abandoned.bin", upload: abandoned)  // DELETE ?uploadId
            try await client.delete(key)  // DELETE
            let presigned = client.presignedURL(key, expires: 900, responseHeaders: [("response-content-type", "text/plain")])

            // verify: the payload hashes are the bodies', and botocore signs every request the same
            let hostile = S3Client(
                bucket: S3Bucket(
                    endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!,
                    region: "us-east-1",
                    name: "media.archive-1",
                    pathStyle: false
                ),
                credentials: S3Credentials(accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey),
                transport: recorder,
                now: { now }
            )
            let oddKey = "dir/a+b=c&d$e ü~(1)*!'.bin"
            let offline = [
                hostile.signedRequest(
                    .PUT,
                    key: oddKey,
                    headers: [("Content-Type", "text/plain")],
                    body: whole,
                    payloadHash: sha256(whole)
                ),
                hostile.signedRequest(.GET, key: oddKey, headers: [("Range", "bytes=0-99")]),
                hostile.signedRequest(.DELETE, key: oddKey, query: [("uploadId", "2~a+b/c=d%e")]),
            ].map { RecordingTransport.Sent(method: $0.method.rawValue, url: $0.url, headers: $0.headers.map { ($0.name, $0.value) }) }
            let oddPresigned = hostile.presignedURL(oddKey, expires: 60, responseHeaders: [("response-content-type", "text/plain")])
            let sent = recorder.sent + offline
            #expect(
                sent.map(\.method) == ["PUT", "POST", "PUT", "POST", "GET", "HEAD", "POST", "DELETE", "DELETE", "PUT", "GET", "DELETE"]
            )
            let hashes = sent.map { request in request.headers.first { $0.name == "x-amz-content-sha256" }?.value ?? "" }
            #expect(hashes[0] == sha256(whole))
            #expect(hashes[2] == sha256(part))
            let requests = sent.map { request in
                Job.Request(
                    method: request.method,
                    url: request.url,
                    headers: request.headers.filter {
                        !["authorization", "x-amz-date", "x-amz-content-sha256"].contains($0.name.lowercased())
                    }
                    .map { [$0.name, $0.value] },
                    timestamp: request.headers.first { $0.name == "x-amz-date" }?.value ?? "",
                    payloadHash: request.headers.first { $0.name == "x-amz-content-sha256" }?.value ?? "",
                    presignExpires: nil
                )
            }
            let presignRequests = [(presigned, 900), (oddPresigned, 60)].map { url, expires in
                Job.Request(
                    method: "GET",
                    url: url.components(separatedBy: "?")[0] + "?response-content-type=text%2Fplain",
                    headers: [],
                    timestamp: requests[0].timestamp,
                    payloadHash: "UNSIGNED-PAYLOAD",
                    presignExpires: expires
                )
            }
            let answers = try await Self.botocore(
                Job(
                    accessKeyId: server.accessKeyId,
                    secretAccessKey: server.secretAccessKey,
                    region: "us-east-1",
                    requests: requests + presignRequests
                )
            )
            for (request, answer) in zip(sent, answers) {
                #expect(
                    request.headers.first { $0.name == "Authorization" }?.value == answer.authorization,
                    "\(request.method) \(request.url)"
                )
            }
            #expect(answers.count == sent.count + 2)
            #expect(Self.signature(in: presigned) == Self.signature(in: answers[sent.count].url ?? ""))
            #expect(Self.signature(in: oddPresigned) == Self.signature(in: answers[sent.count + 1].url ?? ""))
        }
    }

    private func sha256(_ bytes: ByteBuffer) -> String {
        bytes.withUnsafeReadableBytes { SHA256.hash(data: $0) }.map { String(format: "%02x", $0) }.joined()
    }

    private static func signature(in url: String) -> String? {
        url.components(separatedBy: "X-Amz-Signature=").last
    }

    private static func botocore(_ job: Job) async throws -> [Answer] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sigv4-\(UUID().uuidString).json")
        try JSONEncoder().encode(job).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await InteropScript("sigv4_oracle.py", arguments: [file.path]).result()
        return try JSONDecoder().decode([Answer].self, from: Data(output.utf8))
    }
}
