import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TransferdDomain
import TransferdS3
import TransferdTestOrigins
import TransferdTestSupport

@testable import transferd

/// The service's own content store (`--content-store`) on a real S3-compatible server that checks signatures
/// (moto's): downloads' content and uploads' replies go to the bucket, out of the clients' sight; `…/content` streams
/// from it with ranges, or hands over a presigned URL; an upload sends a download's object; removing content removes
/// the object.
@Suite(.serialized) struct ContentStoreTests {
    static let mebibyte = 1 << 20

    /// The settings of a content store in `bucket` of the test server, under `prefix`.
    static func settings(
        _ server: S3TestServer,
        bucket: String,
        prefix: String = "shared",
        extra: String = ""
    ) throws -> ContentStoreSettings {
        try ContentStoreSettings(
            uri: "s3://\(bucket)/\(prefix)?endpoint=\(server.endpoint)&pathStyle=true\(extra)",
            accessKeyId: server.accessKeyId,
            secretAccessKey: server.secretAccessKey
        )
    }

    @Test func contentGoesToTheBucketAndIsServedFromIt() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let settings = try Self.settings(server, bucket: bucket)
        let size = 20 * Self.mebibyte
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory, configure: { $0.contentStore = settings }) { api in
                // act
                try await api.createSession("kept")
                _ = try await api.createTask("kept", url: origin.url("/files/\(size)?name=big"))
                let task = try await api.waitForCompletion("kept", 1)

                // verify: the object is in the bucket under the prefix; the client sees a file, not the service's bucket
                #expect(task.error == nil, "\(task.error?.message ?? "")")
                #expect(task.file?.sha256 == OriginContent.sha256(size: size))
                #expect(task.file?.object == nil && task.destination == nil, "the content store is the service's business")
                let shown = try await api.send(.GET, "/v1/sessions/kept/tasks/1").text
                #expect(!shown.contains(bucket) && !shown.contains("_content"), "\(shown)")
                let events = try await api.send(.GET, "/v1/sessions/kept/events").text
                #expect(events.contains("task.finished_downloading") && !events.contains(bucket), "\(events)")
                let client = ObjectDownloadTests.client(server, bucket: bucket)
                let sessionRow = try #require(
                    try await TestDatabase(dataDirectory: dataDirectory).rows("SELECT id FROM sessions").first?[0]
                )
                let created = try await server.received(bucket: bucket).first { $0.method == "POST" }?.path ?? ""
                let key = String(created.dropFirst("/\(bucket)/".count))
                #expect(
                    key.hasPrefix("shared/sessions/\(sessionRow)/tasks/") && key.count == "shared/sessions/\(sessionRow)/tasks/".count + 36
                )
                #expect(try await client.head(key)?.size == Int64(size))
                #expect(!FileManager.default.fileExists(atPath: "\(dataDirectory)/tasks/1"), "nothing in the data directory")

                // verify: served from the bucket, whole and by range; never as a URL of the internal endpoint
                let whole = try await api.send(.GET, "/v1/sessions/kept/tasks/1/content")
                #expect(whole.status == 200 && OriginContent.sha256(of: whole.body) == OriginContent.sha256(size: size))
                #expect(whole.headers.first(name: "etag") == "\"\(OriginContent.sha256(size: size))\"")
                #expect(whole.headers.first(name: "content-disposition") == "attachment; filename=\"\(size)\"")
                let range = try await api.send(.GET, "/v1/sessions/kept/tasks/1/content", headers: [("Range", "bytes=9000000-9000099")])
                #expect(range.status == 206 && range.body == Data(OriginContent.buffer(9_000_000..<9_000_100).readableBytesView))
                #expect(range.headers.first(name: "content-range") == "bytes 9000000-9000099/\(size)")
                let redirect = try await api.send(.GET, "/v1/sessions/kept/tasks/1/content?redirect=true")
                #expect(redirect.status == 409 && redirect.headers.first(name: "location") == nil)
                #expect(redirect.problem?.detail.contains("no public endpoint (`publicEndpoint=` in --content-store)") == true)
                #expect(!redirect.text.contains(server.endpoint) && !redirect.text.contains(bucket), "\(redirect.text)")
            }
        }
    }

    /// `?redirect=true` hands content over as a presigned URL of the content store's public endpoint, signed for that
    /// host (as botocore signs it for the same moment: moto, which checks signatures in headers, takes no presigned
    /// URL with authentication on).
    @Test func aPresignedURLNamesThePublicEndpoint() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let outside = server.endpoint.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let settings = try Self.settings(server, bucket: bucket, extra: "&publicEndpoint=\(outside)")
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.contentStore = settings }) { api in
                // setup
                try await api.createSession("public")
                _ = try await api.createTask("public", url: origin.url("/files/100000?name=small"))
                try await api.waitForCompletion("public", 1)

                // act
                let redirect = try await api.unfollowed("/v1/sessions/public/tasks/1/content?redirect=true")
                let location = try #require(redirect.headers.first(name: "location"))
                let signedByBotocore = try await Self.botocorePresigned(location, server)

                // verify: the public endpoint's URL, which reads the object there
                #expect(redirect.status == .temporaryRedirect)
                #expect(location.hasPrefix("\(outside)/\(bucket)/shared/sessions/"), "\(location)")
                #expect(location.contains("X-Amz-Expires=300") && location.contains("X-Amz-Signature="))
                #expect(location.contains("response-content-disposition=attachment"))
                #expect(
                    signedByBotocore.components(separatedBy: "X-Amz-Signature=").last
                        == location.components(separatedBy: "X-Amz-Signature=").last
                )
            }
        }
    }

    /// `url` presigned again by botocore (`Tests/Interop/sigv4_oracle.py`), for the same moment and lifetime.
    private static func botocorePresigned(_ url: String, _ server: S3TestServer) async throws -> String {
        let (base, query) = (url.components(separatedBy: "?")[0], url.components(separatedBy: "?").dropFirst().joined(separator: "?"))
        let parameters = query.split(separator: "&")
        let moment = parameters.first { $0.hasPrefix("X-Amz-Date=") }?.dropFirst("X-Amz-Date=".count) ?? ""
        let unsigned = base + "?" + parameters.filter { !$0.hasPrefix("X-Amz-") }.joined(separator: "&")
        let job: [String: Any] = [
            "accessKeyId": server.accessKeyId, "secretAccessKey": server.secretAccessKey, "region": "us-east-1",
            "requests": [
                [
                    "method": "GET", "url": unsigned, "headers": [], "timestamp": String(moment), "payloadHash": "UNSIGNED-PAYLOAD",
                    "presignExpires": 300,
                ]
            ],
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("presign-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: job).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await InteropScript("sigv4_oracle.py", arguments: [file.path]).result()
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: String]])
        return try #require(answers.first?["url"])
    }

    @Test func anUploadSendsADownloadsObjectAndItsReplyIsKeptInTheBucket() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let settings = try Self.settings(server, bucket: bucket, prefix: "p/q")
        let size = 3_000_000
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await UploadReceiver.with { receiver in
                try await TestService.with(dataDirectory: dataDirectory, configure: { $0.contentStore = settings }) { api in
                    // act: a download, then an upload of its content, whose target answers with a body
                    try await api.createSession("chain")
                    _ = try await api.createTask("chain", url: origin.url("/files/\(size)"))
                    try await api.waitForCompletion("chain", 1)
                    let from = #", "method": "POST", "from": {"task": 1}"#
                    _ = try await api.createTask("chain", url: receiver.url("chained", "reply=thanks"), kind: "upload", extra: from)
                    let upload = try await api.waitForCompletion("chain", 2)

                    // verify: the object was sent; the reply is an object of the bucket, served as before
                    #expect(upload.error == nil, "\(upload.error?.message ?? "")")
                    #expect(try await receiver.received("chained").last?.sha256 == OriginContent.sha256(size: size))
                    #expect(try await api.send(.GET, "/v1/sessions/chain/tasks/2/response-body").text == "thanks")
                    let objects = try await server.received(bucket: bucket).filter { $0.method == "PUT" }.map(\.path)
                    #expect(objects.contains { $0.hasPrefix("/\(bucket)/p/q/sessions/") && $0.hasSuffix("/tasks/2.reply") }, "\(objects)")
                    #expect(!FileManager.default.fileExists(atPath: "\(dataDirectory)/tasks/2.reply"))

                    // act: the download's content removed
                    #expect(try await api.send(.DELETE, "/v1/sessions/chain/tasks/1/content").status == 204)

                    // verify: its object is gone from the bucket
                    let deleted = try await server.received(bucket: bucket).filter { $0.method == "DELETE" }.map(\.path)
                    let created = try await server.received(bucket: bucket).first { $0.method == "PUT" && $0.path.contains("/tasks/") }?
                        .path
                    #expect(deleted == [created], "the download's object")
                    #expect(try await api.send(.GET, "/v1/sessions/chain/tasks/1/content").status == 404)
                }
            }
        }
    }

    /// A store that cannot be reached is the service's failure: the task waits and is retried (never failed as the
    /// client's fault), and `…/content` answers 503.
    @Test func anUnreachableContentStoreIsRetriedNotBlamedOnTheClient() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let settings = try Self.settings(server, bucket: bucket)
        try await OriginServer.with { origin in
            try await TestService.with(
                retryPolicy: RetryPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)),
                configure: { $0.contentStore = settings }
            ) { api in
                try await api.createSession("flaky")
                try await server.injectFaults(6, bucket: bucket)
                _ = try await api.createTask("flaky", url: origin.url("/files/1000"))
                let task = try await api.waitForCompletion("flaky", 1)
                #expect(task.error == nil, "\(task.error?.message ?? "")")
                #expect(
                    try await api.send(.GET, "/v1/sessions/flaky/tasks/1/content").body
                        == Data(OriginContent.buffer(0..<1000).readableBytesView)
                )
            }
        }
    }

    /// A tus upload of three appends: each an object while the upload goes on, then one object of the whole file,
    /// served by range and sent by an upload task; a wrong checksum keeps nothing; a removed file leaves no object.
    @Test func aStagedFileIsKeptInTheBucket() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let settings = try Self.settings(server, bucket: bucket)
        let size = 20_000_000
        let tus = ("Tus-Resumable", "1.0.0")
        try await UploadReceiver.with { receiver in
            try await TestService.with(configure: { $0.contentStore = settings }) { api in
                // act: three appends, the second one with a wrong checksum first
                let created = try await api.send(.POST, "/v1/files", headers: [tus, ("Upload-Length", String(size))])
                let path = try #require(created.headers.first(name: "Location"))
                func append(_ range: Range<Int>, _ extra: [(String, String)] = []) async throws -> APIClient.Reply {
                    try await api.send(
                        .PATCH,
                        path,
                        headers: [tus, ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", String(range.lowerBound))]
                            + extra,
                        bytes: OriginContent.buffer(range)
                    )
                }
                #expect(try await append(0..<9_000_000).headers.first(name: "Upload-Offset") == "9000000")
                let wrong = try await append(
                    9_000_000..<18_000_000,
                    [("Upload-Checksum", "sha1 \(Data(repeating: 0, count: 20).base64EncodedString())")]
                )
                #expect(wrong.status == 460)
                #expect(try await api.send(.HEAD, path, headers: [tus]).headers.first(name: "Upload-Offset") == "9000000")
                #expect(try await append(9_000_000..<18_000_000).status == 204)
                #expect(try await append(18_000_000..<size).status == 204)

                // verify: complete, one object of the whole, the appends' objects gone, nothing on disk
                let file = try await api.send(.GET, path).decode(StagedFileView.self)
                #expect(file.state == "complete" && file.sha256 == OriginContent.sha256(size: size))
                let client = ObjectDownloadTests.client(server, bucket: bucket)
                let requests = try await server.received(bucket: bucket)
                let appended = Set(
                    requests.filter { $0.method == "PUT" || $0.method == "POST" }.map(\.path).filter {
                        !$0.hasSuffix("/whole") && $0.contains("/files/")
                    }
                )
                let deleted = Set(requests.filter { $0.method == "DELETE" }.map(\.path))
                #expect(
                    appended.count == 4 && appended.isSubset(of: deleted),
                    "the appends' objects, the refused one's too: \(appended) \(deleted)"
                )
                let whole = try #require(requests.first { $0.path.hasSuffix("/whole") }?.path)
                #expect(try await client.head(String(whole.dropFirst("/\(bucket)/".count)))?.size == Int64(size))
                let range = try await api.send(.GET, path + "/content", headers: [("Range", "bytes=17999990-18000009")])
                #expect(range.status == 206 && range.body == Data(OriginContent.buffer(17_999_990..<18_000_010).readableBytesView))

                // act: an upload task sends it, then the file is removed
                try await api.createSession("up")
                let fileID = try #require(path.split(separator: "/").last)
                _ = try await api.createTask("up", url: receiver.url("staged"), kind: "upload", extra: #", "from": {"file": "\#(fileID)"}"#)
                let task = try await api.waitForCompletion("up", 1)
                #expect(task.error == nil, "\(task.error?.message ?? "")")
                #expect(try await receiver.received("staged").last?.sha256 == OriginContent.sha256(size: size))
                #expect(try await api.send(.DELETE, path, headers: [tus]).status == 204)
                #expect(try await server.received(bucket: bucket).contains { $0.method == "DELETE" && $0.path == whole })
            }
        }
    }

    /// A file sent whole in one request is one object: it is the file, with no copy made.
    @Test func aFileSentWholeIsItsOnlyObject() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let settings = try Self.settings(server, bucket: bucket)
        try await TestService.with(configure: { $0.contentStore = settings }) { api in
            let file = try await api.stageFile("whole", size: 1_000_000)
            #expect(file.sha256 == OriginContent.sha256(size: 1_000_000))
            let requests = try await server.received(bucket: bucket).filter { $0.path.contains("/files/") }
            #expect(requests.map(\.method) == ["PUT", "GET"], "one PUT, read back once for the SHA-256: \(requests)")
            let content = try await api.send(.GET, "/v1/files/whole/content")
            #expect(content.body == Data(OriginContent.buffer(0..<1_000_000).readableBytesView))
        }
    }

    /// A content store that cannot be reached is the service's failure: a staged file's bytes are refused with a 503
    /// that says so and asks to be sent again, never a 500.
    @Test func anUnreachableStoreRefusesBytesWith503() async throws {
        let uri = "s3://bucket/p?endpoint=http://127.0.0.1:9&pathStyle=true"
        let settings = try ContentStoreSettings(uri: uri, accessKeyId: "a", secretAccessKey: "b")
        try await TestService.with(configure: { $0.contentStore = settings }) { api in
            let reply = try await api.send(.PUT, "/v1/files/unreachable", bytes: OriginContent.buffer(0..<1000))
            #expect(reply.status == 503, "\(reply.text)")
            #expect(reply.problem?.type == "urn:transferd:problem:object-storage-unavailable")
            #expect(reply.headers.first(name: "retry-after") == "5")
            #expect(reply.problem?.detail == "The content store could not take the bytes; nothing was kept.")
            #expect(try await api.send(.GET, "/v1/files/unreachable").status == 404, "gone, so that the PUT can be sent again")
        }
    }

    @Test func aContentStoreURIIsCheckedAtStart() throws {
        for (uri, words) in [
            ("http://bucket/prefix", "s3://bucket/prefix"),
            ("s3://bucket/prefix?endpoint=ftp://x", "endpoint"),
            ("s3://bucket/a/../b?endpoint=http://127.0.0.1:9", "--content-store"),
            ("s3://bucket?unknown=1", "parameters"),
            ("s3://bucket?publicEndpoint=https://cdn.example/path", "publicEndpoint"),
            ("s3://Bucket_Name", "bucket"),
        ] {
            #expect(throws: DomainError.self, "\(uri)") { try ContentStoreSettings(uri: uri, accessKeyId: "a", secretAccessKey: "b") }
            do {
                _ = try ContentStoreSettings(uri: uri, accessKeyId: "a", secretAccessKey: "b")
            } catch let error as DomainError {
                #expect(error.detail.contains(words), "\(uri): \(error.detail)")
            }
        }
        let settings = try ContentStoreSettings(uri: "s3://bucket//a//b/", accessKeyId: "a", secretAccessKey: "b")
        #expect(settings.prefix == "a/b/" && settings.storage.endpoint == "https://s3.us-east-1.amazonaws.com")
        #expect(settings.publicStorage == nil)
        let published = try ContentStoreSettings(
            uri: "s3://bucket?publicEndpoint=https://CDN.example:8443",
            accessKeyId: "a",
            secretAccessKey: "b"
        )
        #expect(published.publicStorage?.endpoint == "https://cdn.example:8443" && published.publicStorage?.bucket == "bucket")
        #expect(settings.newContentLocation(sessionID: 4).key.value.hasPrefix("a/b/sessions/4/tasks/"))
        #expect(settings.replyLocation(sessionID: 4, taskIdentifier: 9).key.value == "a/b/sessions/4/tasks/9.reply")
    }
}
