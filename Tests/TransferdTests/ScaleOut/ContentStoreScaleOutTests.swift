import Foundation
import Testing
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
        let databaseURL = try #require(SuiteDatabase.url(forDataDirectory: directories[0]))
        // Without a shared data directory, the instances share the key that seals secrets by the environment.
        let credentials = [
            "TRANSFERD_CONTENT_STORE_ACCESS_KEY_ID": server.accessKeyId,
            "TRANSFERD_CONTENT_STORE_SECRET_ACCESS_KEY": server.secretAccessKey,
            "TRANSFERD_CREDENTIALS_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
        ]
        try await OriginServer.with { origin in
            var instances: [ServiceProcess] = []
            defer { for instance in instances { instance.stopIfRunning() } }
            for (index, directory) in directories.enumerated() {
                let arguments = [
                    "--database-url", databaseURL, "--content-store", "s3://\(bucket)/shared?endpoint=\(server.endpoint)&pathStyle=true",
                ]
                instances.append(
                    try await ServiceProcess.start(
                        dataDirectory: directory,
                        instance: ("i\(index + 1)", 5),
                        arguments: arguments,
                        environment: credentials
                    )
                )
            }
            let apis = instances.map(\.api)

            // setup: throttled downloads of three parts each, created through every instance, held until all exist
            try await apis[0].createSession("shared", configuration: #"{"maximumConnectionsPerHost": 20}"#)
            for number in 1...Self.tasks {
                let url = origin.url("/files/\(Self.size)?name=t\(number)&faults=0&bytesPerSecond=3000000&hold=created")
                _ = try await apis[number % 3].createTask("shared", url: url)
            }
            origin.open(gate: "created")
            let database = TestDatabase(dataDirectory: directories[0])
            // the index of each instance ("i1" is 0) holding downloads with a part acknowledged, and how many
            let checkpointed = """
                SELECT CAST(SUBSTR(lease_owner, 2) AS INTEGER) - 1, COUNT(*) FROM tasks
                WHERE state = 'running' AND partial_bytes > 0 AND lease_owner IS NOT NULL GROUP BY lease_owner
                """
            var killed = -1
            try await waitUntil(timeout: .seconds(120)) {
                killed = Int(try await database.rows(checkpointed).first?[0] ?? -1)
                return killed >= 0
            }

            // act: a crash of an instance with uploads under way
            try await instances[killed].kill()
            try await database.waitUntilStatementsUnderWayEnd()
            let checkpoints = try await database.rows(
                "SELECT task_identifier, partial_bytes FROM tasks WHERE lease_owner = 'i\(killed + 1)' AND state = 'running' AND partial_bytes > 0"
            )
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
            #expect(!checkpoints.isEmpty)
            for row in checkpoints {
                let (taskIdentifier, partialBytes) = (row[0], row[1])
                let destination = try await database.texts("SELECT destination FROM tasks WHERE task_identifier = \(taskIdentifier)")
                let object = try JSONSerialization.jsonObject(with: Data((destination.first ?? "{}").utf8)) as? [String: String]
                let key = "/\(bucket)/\(object?["key"] ?? "?")"
                // Under load a survivor's renewal may come late too, and the task move once more: one of its
                // resumptions is the one at the killed instance's checkpoint, and its upload is the same throughout.
                let history = requests.filter { $0.path == key }.map { "\($0.method) ?\($0.query.prefix(60))" }
                let resumptions = log.filter { $0.type == "task.resumed_at_offset" && $0.taskIdentifier == Int(taskIdentifier) }
                    .map { "\($0.data.fileOffset ?? -1) \($0.data.restartReason.map { "\($0)" } ?? "")" }
                #expect(
                    requests.count { $0.method == "POST" && $0.path == key && $0.query.contains("uploads") } == 1,
                    "task \(taskIdentifier): one multipart upload, continued: \(history); resumed at \(resumptions)"
                )
                #expect(
                    origin.ranges("t\(taskIdentifier)").contains("bytes=\(partialBytes)-"),
                    "task \(taskIdentifier) from \(partialBytes)"
                )
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
}
