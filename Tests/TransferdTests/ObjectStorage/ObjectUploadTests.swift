import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TransferdS3
import TransferdTestOrigins
import TransferdTestSupport

/// Uploads from a bucket of a real S3-compatible server (moto's): the object streamed to the target with its length
/// and type, a read from the store that breaks off continued by range without starting the upload again, and a
/// missing object or store refused clearly.
@Suite(.serialized) struct ObjectUploadTests {
    @Test func anObjectIsStreamedToTheTarget() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let size = 3_000_000
        try await ObjectDownloadTests.client(server, bucket: bucket)
            .put("out/report.bin", bytes: OriginContent.buffer(0..<size), contentType: "application/x-report")
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: ObjectDownloadTests.storage(server, bucket: bucket))
                try await api.createSession("objects")
                let from = #", "from": {"storage": "archive", "key": "out/report.bin"}"#
                _ = try await api.createTask("objects", url: receiver.url("raw"), kind: "upload", extra: from)
                _ = try await api.createTask(
                    "objects",
                    url: receiver.url("form"),
                    kind: "upload",
                    extra: from + #", "method": "POST", "multipart": {"field": "report"}"#
                )
                let raw = try await api.waitForCompletion("objects", 1)
                let form = try await api.waitForCompletion("objects", 2)

                #expect(raw.error == nil && form.error == nil, "\(raw.error?.message ?? "") \(form.error?.message ?? "")")
                let rawArrived = try #require(try await receiver.received("raw").first)
                #expect(rawArrived.size == size && rawArrived.sha256 == OriginContent.sha256(size: size))
                #expect(rawArrived.contentType == "application/x-report")
                let part = try #require(try await receiver.received("form").first?.parts.first)
                #expect(part.filename == "report.bin" && part.sha256 == OriginContent.sha256(size: size))
                #expect(raw.countOfBytesSent == Int64(size))
            }
        }
    }

    /// The store's answer breaks off after 1 MB (a proxy cuts it): the rest is read with a ranged GET, and the
    /// target receives the whole object in one request.
    @Test func aReadThatBreaksOffContinuesByRange() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let size = 4_000_000
        try await ObjectDownloadTests.client(server, bucket: bucket).put("cut.bin", bytes: OriginContent.buffer(0..<size))
        try await InteropScript.serving(
            "cutting_proxy.py",
            arguments: [String(server.port), "GET /\(bucket)/cut.bin", "1000000", "down"],
            hint: "python3 is needed"
        ) { proxy in
            try await UploadReceiver.with { receiver in
                try await TestService.with { api in
                    let storage = ObjectDownloadTests.storage(server, bucket: bucket)
                        .replacingOccurrences(of: server.endpoint, with: "http://127.0.0.1:\(proxy)")
                    _ = try await api.send(.PUT, "/v1/storage/archive", json: storage)
                    try await api.createSession("objects")
                    let from = #", "from": {"storage": "archive", "key": "cut.bin"}"#
                    _ = try await api.createTask("objects", url: receiver.url("cut"), kind: "upload", extra: from)
                    let task = try await api.waitForCompletion("objects", 1)

                    #expect(task.error == nil, "\(task.error?.message ?? "")")
                    let arrived = try await receiver.received("cut")
                    #expect(arrived.count == 1, "one request to the target")
                    #expect(arrived.first?.sha256 == OriginContent.sha256(size: size))
                    let reads = try await server.received(bucket: bucket).filter { $0.method == "GET" && $0.path.hasSuffix("/cut.bin") }
                    #expect(reads.count == 2, "the whole object, then the rest by range")
                }
            }
        }
    }

    @Test func aMissingObjectOrStoreIsRefusedClearly() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: ObjectDownloadTests.storage(server, bucket: bucket))
                try await api.createSession("objects")
                let unnamed = try await api.send(
                    .POST,
                    "/v1/sessions/objects/tasks",
                    json: #"{"kind": "upload", "url": "\#(receiver.url("x"))", "from": {"storage": "other", "key": "k"}}"#
                )
                #expect(unnamed.problem?.detail == "`from.storage` names no storage of the tenant (`other`).")
                _ = try await api.createTask(
                    "objects",
                    url: receiver.url("x"),
                    kind: "upload",
                    extra: #", "from": {"storage": "archive", "key": "none"}"#
                )
                let task = try await api.waitForCompletion("objects", 1)
                #expect(task.error?.code.rawValue == "fileDoesNotExist")
                #expect(task.error?.message == "The object `s3://archive/none` this upload sends is not there.")
            }
        }
    }
}
