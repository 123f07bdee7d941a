import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TransferdS3
import TransferdTestSupport

/// The client against a real S3-compatible server that checks every signature (moto's): each request kind, the
/// store's refusals, and its 503s sent again.
@Suite struct S3ClientTests {
    static func client(_ server: S3TestServer, bucket: String, secret: String? = nil) -> S3Client {
        S3Client(
            bucket: S3Bucket(endpoint: URL(string: server.endpoint)!, region: "us-east-1", name: bucket, pathStyle: true),
            credentials: S3Credentials(accessKeyId: server.accessKeyId, secretAccessKey: secret ?? server.secretAccessKey),
            transport: DirectS3Transport(client: .shared)
        )
    }

    /// Runs `body` with the shared server and a bucket of its own.
    static func withBucket(_ body: (S3TestServer, String) async throws -> Void) async throws {
        let server = try await S3TestServer.shared()
        try await body(server, try await server.makeBucket())
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> ByteBuffer {
        ByteBuffer(bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test func putGetRangeHeadDelete() async throws {
        try await Self.withBucket { server, bucket in
            let client = Self.client(server, bucket: bucket)
            // moto checks signatures against a path it decodes first, which refuses keys with `+`, `=`, `&`, `$` or
            // non-ASCII letters whoever signs them (botocore too); SigV4InteropTests checks those keys' encoding.
            let key = "reports/2026 Q4/report-1.bin"
            let content = Self.bytes(100_000)
            let etag = try await client.put(key, bytes: content, contentType: "application/octet-stream")
            #expect(!etag.isEmpty)

            let info = try #require(try await client.head(key))
            #expect(info.size == 100_000)
            #expect(info.etag == etag)

            let range = try await client.get(key, range: 1000..<1010)
            #expect(range.length == 10)
            #expect(range.info.size == 100_000)
            #expect(try await range.body.collect(upTo: 100) == content.getSlice(at: 1000, length: 10))

            let whole = try await client.get(key)
            #expect(try await whole.body.collect(upTo: 1 << 20) == content)

            try await client.delete(key)
            #expect(try await client.head(key) == nil)
            try await client.delete(key)  // deleting what is gone is not an error
        }
    }

    @Test func multipartUploadCompletesAndAborts() async throws {
        try await Self.withBucket { server, bucket in
            let client = Self.client(server, bucket: bucket)
            let (first, second) = (Self.bytes(5 << 20, seed: 1), Self.bytes(1000, seed: 2))
            let upload = try await client.createMultipartUpload("big.bin", contentType: "application/octet-stream")
            let parts = [
                try await client.uploadPart("big.bin", upload: upload, number: 1, bytes: first),
                try await client.uploadPart("big.bin", upload: upload, number: 2, bytes: second),
            ]
            #expect(parts.allSatisfy { $0.checksumSHA256 != nil } == upload.checksums)
            let etag = try await client.completeMultipartUpload("big.bin", upload: upload, parts: parts)
            #expect(etag.hasSuffix("-2\""))
            var whole = first
            whole.writeImmutableBuffer(second)
            #expect(try await client.get("big.bin").body.collect(upTo: 8 << 20) == whole)
            // A completion sent again after its answer was lost finds the object.
            #expect(try await client.completeMultipartUpload("big.bin", upload: upload, parts: parts) == etag)

            let abandoned = try await client.createMultipartUpload("abandoned.bin")
            _ = try await client.uploadPart("abandoned.bin", upload: abandoned, number: 1, bytes: second)
            try await client.abortMultipartUpload("abandoned.bin", upload: abandoned)
            await #expect(throws: S3Error.self) {
                _ = try await client.uploadPart("abandoned.bin", upload: abandoned, number: 2, bytes: second)
            }
            try await client.abortMultipartUpload("abandoned.bin", upload: abandoned)  // gone already: not an error
            #expect(try await client.head("abandoned.bin") == nil)
        }
    }

    /// The server checks signatures: the same request signed with a wrong secret is refused.
    @Test func aWrongSecretIsRefused() async throws {
        try await Self.withBucket { server, bucket in
            let error = await #expect(throws: S3Error.self) {
                try await Self.client(server, bucket: bucket, secret: "not-the-secret").put("x", bytes: ByteBuffer(string: "x"))
            }
            #expect(error?.code == "SignatureDoesNotMatch")
            #expect(error?.isAuthentication == true)
            let written = try await Self.client(server, bucket: bucket).head("x")
            #expect(written == nil)
        }
    }

    @Test func aMissingBucketIsNamed() async throws {
        try await Self.withBucket { server, bucket in
            let error = await #expect(throws: S3Error.self) {
                _ = try await Self.client(server, bucket: "no-such-bucket").createMultipartUpload("x")
            }
            #expect(error?.code == "NoSuchBucket")
            #expect(error?.isTransient == false)
        }
    }

    /// 503 SlowDown is sent again, after a pause that doubles; a request that meets more of them than its attempts
    /// fails with the store's error.
    @Test func slowDownIsRetried() async throws {
        try await Self.withBucket { server, bucket in
            var client = Self.client(server, bucket: bucket)
            client.backoff = .milliseconds(10)
            try await server.injectFaults(2, bucket: bucket)
            try await client.put("retried", bytes: ByteBuffer(string: "x"))
            #expect(try await server.received(bucket: bucket).filter { $0.path.hasSuffix("/retried") }.count == 3)

            try await server.injectFaults(client.attempts, bucket: bucket)
            let error = await #expect(throws: S3Error.self) { try await client.put("given-up", bytes: ByteBuffer(string: "x")) }
            #expect(error?.status == 503)
            #expect(error?.code == "SlowDown")
        }
    }
}
