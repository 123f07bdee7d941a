import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import Testing
import TransferdTestOrigins
import TransferdTestSupport

/// Three instances of transferd, each with a data directory of its own, sharing only a PostgreSQL database and a
/// content store (moto's S3 server): one is killed while it streams downloads into the bucket, and the others
/// continue its multipart uploads after their last parts; every instance serves every task's content, and a file
/// staged through two instances is sent by a third. Only with
/// `TRANSFERD_TEST_DATABASE_URL`.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct ContentStoreScaleOutTests {
    static let size = 20 << 20
    static let tasks = 9

    @Test func instancesSharingNoDiskLoseNothingWhenOneIsKilled() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let directories = (1...3).map { _ in DataDirectories.temporary() }
        try await OriginServer.with { origin in
            let instances = try await Self.start(directories, server: server, bucket: bucket)
            defer { for instance in instances { instance.stopIfRunning() } }
            let apis = instances.map(\.api)

            // setup: throttled downloads of three parts each, created through every instance, held until all exist
            try await apis[0].createSession("shared", configuration: #"{"maximumConnectionsPerHost": 20}"#)
            for number in 1...Self.tasks {
                let url = origin.url("/files/\(Self.size)?name=t\(number)&faults=0&bytesPerSecond=3000000&hold=created")
                _ = try await apis[number % 3].createTask("shared", url: url)
            }
            origin.open(gate: "created")
            let database = TestDatabase(dataDirectory: directories[0])
            // the index of an instance ("i1" is 0) holding downloads with a part acknowledged, and those downloads
            let checkpointed = """
                SELECT CAST(SUBSTR(lease_owner, 2) AS INTEGER) - 1, task_identifier FROM tasks
                WHERE state = 'running' AND partial_bytes > 0 AND lease_owner IS NOT NULL ORDER BY lease_owner
                """
            var (killed, held) = (-1, [Int64]())
            try await waitUntil(timeout: .seconds(120)) {
                let rows = try await database.rows(checkpointed)
                killed = Int(rows.first?[0] ?? -1)
                held = rows.filter { $0[0] == killed }.map { $0[1] }
                return killed >= 0
            }

            // act: a crash of an instance with uploads under way. Which downloads it held is read before: under load
            // a lease can lapse in the moments around the kill, and the download move on to a survivor.
            try await instances[killed].kill()
            let survivors = apis.indices.filter { $0 != killed }.map { apis[$0] }
            try await waitUntil(timeout: .seconds(240)) { try await survivors[0].tasks("shared").allSatisfy { $0.state == "completed" } }

            // verify: every download whole, in the bucket, served by every survivor; the log gap-free, one completion each
            let tasks = try await survivors[1].tasks("shared")
            #expect(tasks.count == Self.tasks)
            for task in tasks {
                #expect(task.error == nil, "task \(task.taskIdentifier): \(task.error?.message ?? "")")
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size), "task \(task.taskIdentifier)")
            }
            for api in survivors {
                let content = try await api.send(.GET, "/v1/sessions/shared/tasks/\(Self.tasks)/content")
                #expect(OriginContent.sha256(of: content.body) == OriginContent.sha256(size: Self.size))
            }
            let log = try await survivors[0].allEvents("shared")
            #expect(log.map(\.sequence) == Array(1...log.count), "sequences 1, 2, 3, … without a gap")
            #expect(log.filter { $0.type == "task.completed" }.compactMap(\.taskIdentifier).sorted() == Array(1...Self.tasks))
            for directory in directories {
                let kept = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/tasks")) ?? []
                #expect(kept.isEmpty, "nothing kept on an instance's disk: \(kept)")
            }
            let requests = try await server.received(bucket: bucket)
            #expect(!held.isEmpty)
            for taskIdentifier in held {
                let destination = try await database.texts("SELECT destination FROM tasks WHERE task_identifier = \(taskIdentifier)")
                let object = try JSONSerialization.jsonObject(with: Data((destination.first ?? "{}").utf8)) as? [String: String]
                let key = "/\(bucket)/\(object?["key"] ?? "?")"
                // Under load a survivor's renewal may come late too, and the task move once more: each of its
                // resumptions is at an acknowledged part, asked of the origin from there, and its upload is the same
                // throughout.
                let history = requests.filter { $0.path == key }.map { "\($0.method) ?\($0.query.prefix(60))" }
                let offsets = log.filter { $0.type == "task.resumed_at_offset" && $0.taskIdentifier == Int(taskIdentifier) }
                    .map { $0.data.fileOffset ?? -1 }
                #expect(
                    requests.count { $0.method == "POST" && $0.path == key && $0.query.contains("uploads") } == 1,
                    "task \(taskIdentifier): one multipart upload, continued: \(history); resumed at \(offsets)"
                )
                #expect(!offsets.isEmpty && offsets.allSatisfy { $0 > 0 }, "task \(taskIdentifier) resumed at \(offsets), not from 0")
                for offset in offsets {
                    #expect(origin.ranges("t\(taskIdentifier)").contains("bytes=\(offset)-"), "task \(taskIdentifier) from \(offset)")
                }
            }
            // act: a file staged in two appends to two instances, sent by an upload task
            let tus = ("Tus-Resumable", "1.0.0")
            let created = try await survivors[0].send(.POST, "/v1/files", headers: [tus, ("Upload-Length", "3000000")])
            let path = try #require(created.headers.first(name: "Location"))
            for (api, range) in zip(survivors, [0..<1_000_000, 1_000_000..<3_000_000]) {
                let headers = [tus, ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", String(range.lowerBound))]
                #expect(try await api.send(.PATCH, path, headers: headers, bytes: OriginContent.buffer(range)).status == 204)
            }
            try await UploadReceiver.with { receiver in
                let fileID = try #require(path.split(separator: "/").last)
                _ = try await survivors[1].createTask(
                    "shared",
                    url: receiver.url("staged"),
                    kind: "upload",
                    extra: #", "from": {"file": "\#(fileID)"}"#
                )
                let upload = try await survivors[0].waitForCompletion("shared", Self.tasks + 1)

                // verify: whichever instance ran it, the file was there
                #expect(upload.error == nil, "\(upload.error?.message ?? "")")
                #expect(try await receiver.received("staged").last?.sha256 == OriginContent.sha256(size: 3_000_000))
            }
            for (index, instance) in instances.enumerated() where index != killed { try await instance.terminate() }
        }
    }

    /// Two requests append different bytes at the same offset of one staged file at once, each through another
    /// instance: one is kept and completes the file, the other is refused with 409 (the file moved on while it
    /// appended, or it stood elsewhere when it began), and the file holds the kept one's bytes, whose object the
    /// other's never overwrote.
    @Test func twoAppendsAtOneOffsetThroughTwoInstancesKeepOne() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        let instances = try await Self.start((1...2).map { _ in DataDirectories.temporary() }, server: server, bucket: bucket)
        defer { for instance in instances { instance.stopIfRunning() } }
        let size = 2 << 20
        let created = try await instances[0].api.send(.POST, "/v1/files", headers: [Self.tus, ("Upload-Length", String(size))])
        let path = try #require(created.headers.first(name: "Location"))
        let bodies = [OriginContent.buffer(0..<size), ByteBuffer(repeating: 0x61, count: size)]

        // act: each request sends its first half, and its second once both first halves have gone
        let firstHalves = BodyGate(count: 2)
        let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (index, instance) in instances.enumerated() {
                group.addTask {
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(instance.port)\(path)")
                    request.method = .PATCH
                    for (name, value) in [
                        Self.tus, ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", "0"),
                        ("Authorization", "Bearer \(TestService.apiKey)"),
                    ] { request.headers.add(name: name, value: value) }
                    request.body = .stream(HeldBody(bodies[index], gate: firstHalves), length: .known(Int64(size)))
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    return (index, Int(response.status.code))
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }

        // verify: one kept, one refused, and the file is the kept one's bytes
        #expect(statuses.values.sorted() == [204, 409], "\(statuses)")
        let kept = try #require(statuses.first { $0.value == 204 }?.key)
        let file = try await instances[1 - kept].api.send(.GET, path).decode(StagedFileView.self)
        let digest = SHA256.hash(data: Data(bodies[kept].readableBytesView)).map { String(format: "%02x", $0) }.joined()
        #expect(file.state == "complete" && file.sha256 == digest)
        let content = try await instances[1 - kept].api.send(.GET, path + "/content")
        #expect(content.status == 200 && content.body == Data(bodies[kept].readableBytesView))
    }

    static let tus = ("Tus-Resumable", "1.0.0")

    /// Instances over the data directories, sharing the first one's PostgreSQL database and a content store in
    /// `bucket`, and (having no data directory in common) the key that seals secrets, by the environment.
    static func start(_ directories: [String], server: S3TestServer, bucket: String) async throws -> [ServiceProcess] {
        let databaseURL = try #require(SuiteDatabase.url(forDataDirectory: directories[0]))
        let environment = [
            "TRANSFERD_CONTENT_STORE_ACCESS_KEY_ID": server.accessKeyId,
            "TRANSFERD_CONTENT_STORE_SECRET_ACCESS_KEY": server.secretAccessKey,
            "TRANSFERD_CREDENTIALS_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
        ]
        let arguments = [
            "--database-url", databaseURL, "--content-store", "s3://\(bucket)/shared?endpoint=\(server.endpoint)&pathStyle=true",
        ]
        var instances: [ServiceProcess] = []
        do {
            for (index, directory) in directories.enumerated() {
                instances.append(
                    try await ServiceProcess.start(
                        dataDirectory: directory,
                        instance: ("i\(index + 1)", 5),
                        arguments: arguments,
                        environment: environment
                    )
                )
            }
        } catch {
            for instance in instances { instance.stopIfRunning() }
            throw error
        }
        return instances
    }
}
