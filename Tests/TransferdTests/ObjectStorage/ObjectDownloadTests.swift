import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TransferdS3
import TransferdTestOrigins
import TransferdTestSupport

@testable import transferd

/// Downloads into a bucket of a real S3-compatible server that checks signatures (moto's): streamed into a multipart
/// upload part by part, completed into the object, continued after a crash from the last part the store
/// acknowledged, aborted when the task fails; the store's refusals fail the task with what it said.
@Suite(.serialized) struct ObjectDownloadTests {
    static let mebibyte = 1 << 20

    /// A tenant's store on the test server, named `name`, with `secret` instead of the right one when given.
    static func storage(_ server: S3TestServer, bucket: String, secret: String? = nil) -> String {
        #"{"endpoint": "\#(server.endpoint)", "bucket": "\#(bucket)", "accessKeyId": "\#(server.accessKeyId)", "secretAccessKey": "\#(secret ?? server.secretAccessKey)", "pathStyle": true}"#
    }

    static func client(_ server: S3TestServer, bucket: String) -> S3Client {
        S3Client(
            bucket: S3Bucket(endpoint: URL(string: server.endpoint)!, region: "us-east-1", name: bucket, pathStyle: true),
            credentials: S3Credentials(accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey),
            transport: DirectS3Transport(client: .shared)
        )
    }

    static func destination(_ key: String) -> String {
        #", "destination": {"storage": "archive", "key": "\#(key)"}"#
    }

    @Test func aDownloadIsStreamedIntoTheBucketPartByPart() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let size = 20 * Self.mebibyte
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // setup
                #expect(try await api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: bucket)).status == 201)
                try await api.createSession("objects")

                // act: one download of three parts (8, 8 and 4 MiB), one smaller than a part
                _ = try await api.createTask("objects", url: origin.url("/files/\(size)?name=big"), extra: Self.destination("in/big.bin"))
                _ = try await api.createTask("objects", url: origin.url("/files/1000?name=small"), extra: Self.destination("in/small.bin"))
                let big = try await api.waitForCompletion("objects", 1)
                let small = try await api.waitForCompletion("objects", 2)

                // verify: the objects hold the bytes, the task names them
                #expect(big.error == nil && small.error == nil, "\(big.error?.message ?? "") \(small.error?.message ?? "")")
                #expect(big.file?.sha256 == OriginContent.sha256(size: size))
                #expect(big.file?.object?.key == "in/big.bin" && big.file?.object?.bucket == bucket)
                #expect(big.file?.object?.etag.hasSuffix("-3\"") == true, "a multipart object's ETag: \(big.file?.object?.etag ?? "")")
                #expect(big.destination?.storage == "archive")
                let client = Self.client(server, bucket: bucket)
                let stored = try await client.get("in/big.bin").body.collect(upTo: size + 1)
                #expect(stored == OriginContent.buffer(0..<size))
                #expect(try await client.get("in/small.bin").body.collect(upTo: 2000) == OriginContent.buffer(0..<1000))
                let requests = try await server.received(bucket: bucket)
                #expect(requests.count { $0.method == "PUT" && $0.query.contains("partNumber=") } == 3)
                #expect(requests.count { $0.method == "PUT" && $0.path.hasSuffix("/in/small.bin") } == 1, "a small object in one PUT")
                let finished = try await api.allEvents("objects").first { $0.type == "task.finished_downloading" }
                #expect(finished != nil)
                #expect(try await api.send(.GET, "/v1/sessions/objects/tasks/1").text.contains(#""etag""#))
                // `…/content` reads the tenant's object: by range, or through a presigned URL
                let range = try await api.send(.GET, "/v1/sessions/objects/tasks/1/content", headers: [("Range", "bytes=-10")])
                #expect(range.status == 206 && range.body == Data(OriginContent.buffer((size - 10)..<size).readableBytesView))
                let redirect = try await api.unfollowed("/v1/sessions/objects/tasks/1/content?redirect=true")
                #expect(redirect.status == .temporaryRedirect)
                #expect(redirect.headers.first(name: "location")?.hasPrefix("\(server.endpoint)/\(bucket)/in/big.bin?") == true)
                let browser = DashboardClient(api)
                try await browser.signIn()
                let page = try await browser.get("/ui/sessions/objects/tasks/1").text
                #expect(page.contains("<dt>Destination</dt><dd class=\"url\">s3://archive/in/big.bin</dd>"), "\(page)")
                #expect(page.contains("In <code>s3://archive/in/big.bin</code> ("), "\(page)")
            }
        }
    }

    @Test func aWrongSecretFailsTheTaskWithTheStoresRefusal() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await OriginServer.with { origin in
            try await TestService.with { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: bucket, secret: "wrong-secret"))
                try await api.createSession("objects")
                _ = try await api.createTask("objects", url: origin.url("/files/1000"), extra: Self.destination("x.bin"))
                let task = try await api.waitForCompletion("objects", 1)
                #expect(task.error?.code.rawValue == "objectStorageRefused")
                #expect(task.error?.message.contains("SignatureDoesNotMatch") == true, "\(task.error?.message ?? "")")
                #expect(task.error?.statusCode == 403)
            }
        }
    }

    @Test func aMissingBucketFailsTheTaskByName() async throws {
        let server = try await S3TestServer.shared()
        try await OriginServer.with { origin in
            try await TestService.with { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: "no-such-bucket"))
                try await api.createSession("objects")
                _ = try await api.createTask("objects", url: origin.url("/files/1000"), extra: Self.destination("x.bin"))
                let task = try await api.waitForCompletion("objects", 1)
                #expect(task.error?.code.rawValue == "objectStorageRefused")
                #expect(task.error?.message.contains("NoSuchBucket") == true, "\(task.error?.message ?? "")")
            }
        }
    }

    /// The first part of a new multipart upload is refused until the attempt gives up: the next attempt continues the
    /// upload the first one began (recorded before any part went), rather than beginning another and leaving the
    /// first one behind in the bucket, never completed nor aborted.
    @Test func aRetriedAttemptContinuesTheUploadItBegan() async throws {
        try await Self.downloadIntoArchive(size: 10 * Self.mebibyte, key: "retried.bin", faults: (4, "partNumber=1&")) {
            server,
            bucket,
            task,
            _ in
            #expect(task.error == nil, "\(task.error?.message ?? "")")
            #expect(task.attempts.count == 2, "the first attempt gave up on its part")
            let requests = try await server.received(bucket: bucket)
            #expect(requests.count { $0.method == "POST" && $0.query.hasPrefix("uploads") } == 1, "one multipart upload: \(requests)")
            #expect(!requests.contains { $0.method == "DELETE" }, "nothing aborted")
        }
    }

    /// The last part goes with the completion, never among the parts in flight, so the parts kept never cover the
    /// whole object: a completion refused until the attempt gives up leaves the parts before the last, and the next
    /// attempt asks the origin for the last part's bytes, sends that part again and completes the same upload (had
    /// every part been kept, there would be no bytes to ask for, and the origin's 416 would start a new upload).
    @Test func aRefusedCompletionIsRetriedWithTheLastPartSentAgain() async throws {
        let (size, partSize) = (16 * Self.mebibyte, 8 * Self.mebibyte)
        try await Self.downloadIntoArchive(size: size, key: "whole.bin", faults: (4, "whole.bin?uploadId=")) {
            server,
            bucket,
            task,
            origin in
            #expect(task.error == nil, "\(task.error?.message ?? "")")
            #expect(task.file?.sha256 == OriginContent.sha256(size: size))
            #expect(task.attempts.count == 2, "the first attempt gave up on its completion")
            let requests = try await server.received(bucket: bucket)
            #expect(requests.count { $0.method == "POST" && $0.query.hasPrefix("uploads") } == 1, "one multipart upload: \(requests)")
            #expect(requests.count { $0.method == "PUT" && $0.query.hasPrefix("partNumber=1&") } == 1, "the kept part sent once")
            #expect(requests.count { $0.method == "PUT" && $0.query.hasPrefix("partNumber=2&") } == 2, "the last part sent again")
            #expect(origin.ranges("whole").last == "bytes=\(partSize)-")
        }
    }

    /// One download of `size` bytes (named after `key`'s stem at the origin) into `key` of the tenant's store
    /// `archive`, after `faults` are injected (the next count requests that contain the text answered 503); `verify`
    /// sees the task once it completed.
    static func downloadIntoArchive(
        size: Int,
        key: String,
        faults: (count: Int, matching: String),
        verify: (S3TestServer, _ bucket: String, TaskView, OriginServer) async throws -> Void
    ) async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await OriginServer.with { origin in
            try await TestService.with { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: bucket))
                try await api.createSession("objects")
                try await server.injectFaults(faults.count, bucket: bucket, matching: faults.matching)
                let name = key.split(separator: ".").first ?? ""
                _ = try await api.createTask("objects", url: origin.url("/files/\(size)?name=\(name)"), extra: Self.destination(key))
                try await verify(server, bucket, try await api.waitForCompletion("objects", 1), origin)
            }
        }
    }

    /// A store that answers 503 SlowDown for a while is asked again; the download completes.
    @Test func aStoreThatAnswers503IsRetried() async throws {
        let size = 10 * Self.mebibyte
        try await Self.downloadIntoArchive(size: size, key: "slow.bin", faults: (3, "")) { server, bucket, task, _ in
            #expect(task.error == nil, "\(task.error?.message ?? "")")
            #expect(task.file?.sha256 == OriginContent.sha256(size: size))
            let requests = try await server.received(bucket: bucket)
            #expect(requests.count >= 3 + 4, "three refused, then create, two parts, complete")
        }
    }

    /// A task cancelled while its parts are uploaded has its multipart upload aborted: the store keeps no part.
    @Test func aCancelledDownloadHasItsMultipartUploadAborted() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.sweepInterval = .milliseconds(100) }) { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: bucket))
                try await api.createSession("objects")
                // Two parts arrive at once, then the origin stops sending until the test opens the gate.
                _ = try await api.createTask(
                    "objects",
                    url: origin.url("/files/\(40 * Self.mebibyte)?name=cut&stallAfter=\(17 * Self.mebibyte)"),
                    extra: Self.destination("cut.bin")
                )
                try await waitUntil(timeout: .seconds(60)) {
                    try await server.received(bucket: bucket).count { $0.query.contains("partNumber=2") } == 1
                }
                _ = try await api.send(.POST, "/v1/sessions/objects/tasks/1/cancel", json: "{}")
                let task = try await api.waitForCompletion("objects", 1)
                #expect(task.error?.code.rawValue == "cancelled")
                try await waitUntil(timeout: .seconds(30)) {
                    try await server.received(bucket: bucket).contains { $0.method == "DELETE" && $0.query.contains("uploadId=") }
                }
                #expect(try await Self.client(server, bucket: bucket).head("cut.bin") == nil)
            }
        }
    }

    /// `transferctl get URL --to s3://storage/key`, and with several URLs a prefix under which each object is named
    /// after its URL.
    @Test func transferctlDownloadsIntoABucket() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await OriginServer.with { origin in
            try await TestService.with { api in
                _ = try await api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: bucket))
                let one = try await TransferctlProcess.run("get", origin.url("/files/3000"), "--to", "s3://archive/one/a.bin", api: api)
                #expect(one.status == 0, "\(one.errors)")
                let several = try await TransferctlProcess.run(
                    "get",
                    origin.url("/files/1000?name=x"),
                    origin.url("/files/1000?name=y"),
                    "--to",
                    "s3://archive/many/",
                    api: api
                )
                #expect(several.status == 0, "\(several.errors)")
                let refused = try await TransferctlProcess.run("get", origin.url("/files/10"), "--to", "s3://archive/k", "-O", api: api)
                #expect(refused.status != 0 && refused.errors.contains("--to writes into a bucket"), "\(refused.errors)")

                let client = Self.client(server, bucket: bucket)
                #expect(try await client.head("one/a.bin")?.size == 3000)
                #expect(try await client.head("many/1000")?.size == 1000)
                #expect(try await client.head("many/1000.1")?.size == 1000, "a second URL of the same name is numbered")
            }
        }
    }

    /// `kill -9` in the middle of a 200 MiB download into a bucket: the next start continues the same multipart
    /// upload after the last part the store acknowledged, with the origin asked for the bytes after it.
    @Test func aKillNineMidwayContinuesTheSameMultipartUploadAfterItsLastPart() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let size = 200 * Self.mebibyte
        let partSize = 8 * Self.mebibyte
        try await OriginServer.with { origin in
            // setup: a throttled download under way in a real process, three parts acknowledged
            let dataDirectory = DataDirectories.temporary()
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { first.stopIfRunning() }
            _ = try await first.api.send(.PUT, "/v1/storage/archive", json: Self.storage(server, bucket: bucket))
            try await first.api.createSession("objects")
            _ = try await first.api.createTask(
                "objects",
                url: origin.url("/files/\(size)?name=big&faults=0&bytesPerSecond=25000000"),
                extra: Self.destination("big/200.bin")
            )
            let database = TestDatabase(dataDirectory: dataDirectory)
            try await waitUntil(timeout: .seconds(120)) { try await database.checkpoints()[1, default: 0] >= 3 * partSize }

            // act
            try await first.kill()
            let checkpoint = try #require(try await database.checkpoints()[1])
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { second.stopIfRunning() }
            let task = try await second.api.waitForCompletion("objects", 1, timeout: .seconds(240))

            // verify: one multipart upload, its kept parts never sent again, the origin asked from the checkpoint on
            #expect(task.error == nil, "\(task.error?.message ?? "")")
            #expect(task.file?.sha256 == OriginContent.sha256(size: size))
            #expect(checkpoint % partSize == 0, "a checkpoint is a whole number of parts: \(checkpoint)")
            let requests = try await server.received(bucket: bucket)
            #expect(requests.count { $0.method == "POST" && $0.query.contains("uploads") } == 1, "the same multipart upload throughout")
            let parts = requests.compactMap { request in
                request.query.split(separator: "&").first { $0.hasPrefix("partNumber=") }.flatMap { Int($0.dropFirst("partNumber=".count)) }
            }
            let kept = checkpoint / partSize
            for number in 1...kept { #expect(parts.count { $0 == number } == 1, "part \(number), kept, was sent once") }
            #expect(Set(parts) == Set(1...(size / partSize)))
            #expect(origin.ranges("big").last == "bytes=\(checkpoint)-")
            // The task's SHA-256 is the object's: after a continued upload it is computed by reading the object back.
            #expect(try await Self.client(server, bucket: bucket).head("big/200.bin")?.size == Int64(size))
            try await second.terminate()
        }
    }
}
