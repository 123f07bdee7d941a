import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// `/v1/files` speaks tus 1.0.0: each rule of the protocol, request by request.
@Suite struct TusProtocolTests {
    static let tus = ("Tus-Resumable", "1.0.0")
    static let offsetBody = ("Content-Type", "application/offset+octet-stream")

    /// Creates an upload of `length` bytes and returns its path.
    private func create(_ api: APIClient, length: Int, metadata: String? = nil) async throws -> String {
        var headers = [Self.tus, ("Upload-Length", String(length))]
        if let metadata { headers.append(("Upload-Metadata", metadata)) }
        let reply = try await api.send(.POST, "/v1/files", headers: headers)
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply.headers.first(name: "Tus-Resumable") == "1.0.0")
        #expect(reply.headers.first(name: "Upload-Expires") != nil)
        return try #require(reply.headers.first(name: "Location"))
    }

    private func patch(
        _ api: APIClient,
        _ path: String,
        offset: Int,
        _ range: Range<Int>,
        extra: [(String, String)] = []
    ) async throws
        -> APIClient.Reply
    {
        try await api.send(
            .PATCH,
            path,
            headers: [Self.tus, Self.offsetBody, ("Upload-Offset", String(offset))] + extra,
            bytes: OriginContent.buffer(range)
        )
    }

    @Test func optionsAdvertisesTheVersionExtensionsLimitAndChecksums() async throws {
        try await TestService.with { api in
            let reply = try await api.send(.OPTIONS, "/v1/files")
            #expect(reply.status == 204)
            #expect(reply.headers.first(name: "Tus-Version") == "1.0.0")
            #expect(reply.headers.first(name: "Tus-Extension") == "creation,creation-with-upload,expiration,checksum,termination")
            #expect(reply.headers.first(name: "Tus-Max-Size") == String(100 << 30))
            #expect(reply.headers.first(name: "Tus-Checksum-Algorithm") == "sha1,sha256,md5")
        }
    }

    @Test func anUploadIsCreatedAppendedInPiecesAndCompleted() async throws {
        try await TestService.with { api in
            let path = try await create(api, length: 300_000, metadata: "filename aGVsbG8uYmlu,filetype YXBwbGljYXRpb24veC10ZXN0")
            let head = try await api.send(.HEAD, path, headers: [Self.tus])
            #expect(head.headers.first(name: "Upload-Offset") == "0")
            #expect(head.headers.first(name: "Upload-Length") == "300000")
            #expect(head.headers.first(name: "Cache-Control") == "no-store")

            let first = try await patch(api, path, offset: 0, 0..<100_000)
            #expect(first.status == 204)
            #expect(first.headers.first(name: "Upload-Offset") == "100000")
            let last = try await patch(api, path, offset: 100_000, 100_000..<300_000)
            #expect(last.headers.first(name: "Upload-Offset") == "300000")

            let file = try await api.send(.GET, path).decode(StagedFileView.self)
            #expect(file.state == "complete")
            #expect(file.sha256 == OriginContent.sha256(size: 300_000))
            #expect(file.contentType == "application/x-test")
            #expect(file.metadata.additionalProperties == ["filename": "hello.bin", "filetype": "application/x-test"])
            let content = try await api.send(.GET, path + "/content")
            #expect(OriginContent.sha256(of: content.body) == OriginContent.sha256(size: 300_000))
        }
    }

    @Test func creationWithUploadStoresTheFirstBytes() async throws {
        try await TestService.with { api in
            let reply = try await api.send(
                .POST,
                "/v1/files",
                headers: [Self.tus, Self.offsetBody, ("Upload-Length", "1000")],
                bytes: OriginContent.buffer(0..<400)
            )
            #expect(reply.status == 201)
            #expect(reply.headers.first(name: "Upload-Offset") == "400")
        }
    }

    @Test func aWrongOffsetIsAConflictAndAWrongChecksumKeepsNothing() async throws {
        try await TestService.with { api in
            let path = try await create(api, length: 1000)
            #expect(try await patch(api, path, offset: 10, 0..<100).status == 409)

            let wrong = try await patch(
                api,
                path,
                offset: 0,
                0..<100,
                extra: [("Upload-Checksum", "sha1 \(Data(repeating: 0, count: 20).base64EncodedString())")]
            )
            #expect(wrong.status == 460)
            #expect(wrong.headers.first(name: "Tus-Resumable") == "1.0.0")
            #expect(try await api.send(.HEAD, path, headers: [Self.tus]).headers.first(name: "Upload-Offset") == "0")

            let digest = Data(Insecure.SHA1.hash(data: Data(OriginContent.bytes(0..<100))))
            let right = try await patch(api, path, offset: 0, 0..<100, extra: [("Upload-Checksum", "sha1 \(digest.base64EncodedString())")])
            #expect(right.status == 204)
            #expect(right.headers.first(name: "Upload-Offset") == "100")
        }
    }

    /// While one `PATCH` appends, another at the same offset is refused at once, and the first goes on to the end.
    @Test func aSecondAppendWhileOneIsUnderWayIsAConflict() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            let size = 2 << 20
            let path = try await create(api, length: size)

            // setup: an append that has written its first half and holds its second
            let gate = BodyGate(count: 2)
            var request = HTTPClientRequest(url: api.baseURL + path)
            request.method = .PATCH
            for (name, value) in [Self.tus, Self.offsetBody, ("Upload-Offset", "0"), ("Authorization", "Bearer \(TestService.apiKey)")] {
                request.headers.add(name: name, value: value)
            }
            request.body = .stream(HeldBody(OriginContent.buffer(0..<size), gate: gate), length: .known(Int64(size)))
            let first = Task { try await HTTPClient.shared.execute(request, timeout: .seconds(60)).status.code }
            try await waitUntil {
                let staged = try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/files")
                return try staged.contains { name in
                    let size = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/files/" + name)[.size] as? Int ?? 0
                    return size >= StagedFileService.batchSize
                }
            }

            // act
            let second = try await patch(api, path, offset: 0, 0..<100)
            await gate.arrive()

            // verify: the second refused at once, the first kept whole
            #expect(second.status == 409 && second.problem?.detail.hasPrefix("Another request is appending") == true, "\(second.text)")
            #expect(try await first.value == 204)
            #expect(try await api.send(.HEAD, path, headers: [Self.tus]).headers.first(name: "Upload-Offset") == String(size))
        }
    }

    @Test func badRequestsGetTheStatusTusPrescribes() async throws {
        try await TestService.with(configure: { $0.stagedFileLimits.maximumSize = 5000 }) { api in
            let path = try await create(api, length: 1000)
            let plainBody = try await api.send(.PATCH, path, headers: [Self.tus, ("Upload-Offset", "0")], body: "x")
            #expect(plainBody.status == 415)
            #expect(try await api.send(.HEAD, path, headers: [("Tus-Resumable", "0.2.2")]).status == 412)
            #expect(try await api.send(.POST, "/v1/files", headers: [Self.tus]).problem?.detail == "`Upload-Length` is required.")
            #expect(try await api.send(.POST, "/v1/files", headers: [Self.tus, ("Upload-Length", "6000")]).status == 413)
            #expect(try await patch(api, path, offset: 0, 0..<1001).status == 413)
            #expect(try await api.send(.HEAD, "/v1/files/unknown", headers: [Self.tus]).status == 404)
            #expect(try await api.send(.HEAD, "/v1/files/..%2Fetc", headers: [Self.tus]).status == 400)
        }
    }

    @Test func terminationRemovesTheUpload() async throws {
        try await TestService.with { api in
            let path = try await create(api, length: 1000)
            #expect(try await api.send(.DELETE, path, headers: [Self.tus]).status == 204)
            #expect(try await api.send(.HEAD, path, headers: [Self.tus]).status == 404)
        }
    }

    @Test func anUnfinishedUploadExpires() async throws {
        try await TestService.with(configure: {
            $0.stagedFileLimits.uploadExpiration = .milliseconds(300)
            $0.sweepInterval = .milliseconds(50)
        }) { api in
            let path = try await create(api, length: 1000)
            try await waitUntil { try await api.send(.HEAD, path, headers: [Self.tus]).status == 404 }
            #expect(try await patch(api, path, offset: 0, 0..<10).status == 404)
        }
    }

    @Test func plainUploadsTakeTheWholeBody() async throws {
        try await TestService.with { api in
            let put = try await api.stageFile("report.csv", size: 70_000, contentType: "text/csv")
            #expect(put.state == "complete")
            #expect(put.sha256 == OriginContent.sha256(size: 70_000))
            #expect(put.contentType == "text/csv")
            let again = try await api.send(.PUT, "/v1/files/report.csv", bytes: OriginContent.buffer(0..<10))
            #expect(again.status == 409, "files are not replaced")

            let post = try await api.send(
                .POST,
                "/v1/files",
                headers: [("Content-Type", "image/png")],
                bytes: OriginContent.buffer(0..<5000)
            )
            #expect(post.status == 201)
            let created = try post.decode(StagedFileView.self)
            #expect(post.headers.first(name: "Location") == "/v1/files/\(created.id)")
            #expect(created.sha256 == OriginContent.sha256(size: 5000))
            let range = try await api.send(.GET, "/v1/files/\(created.id)/content", headers: [("Range", "bytes=10-19")])
            #expect(range.status == 206)
            #expect(Array(range.body) == OriginContent.bytes(10..<20))
        }
    }
}
