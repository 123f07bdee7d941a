import Foundation
import Testing
import TransferdTestOrigins

/// Three instances of transferd over one PostgreSQL database and one data directory, one of them killed while it
/// transfers: what it held is continued by the others, and nothing runs twice. Only with
/// `TRANSFERD_TEST_DATABASE_URL`.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct ScaleOutTests {
    static let size = 1_500_000
    static let sessions = ["s1", "s2", "s3"]
    /// What the subscribers receive: every event but progress, whose superseded deliveries are coalesced.
    static let subscribed = ["task.created", "task.resumed", "task.resumed_at_offset", "task.finished_downloading", "task.completed"]

    @Test func aKilledInstancesTransfersAreContinuedByTheOthersExactlyOnce() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                var instances: [ServiceProcess] = []
                defer { for instance in instances { instance.stopIfRunning() } }
                for id in ["i1", "i2", "i3"] {
                    instances.append(try await ServiceProcess.start(dataDirectory: dataDirectory, instance: (id, 5)))
                }
                let apis = instances.map(\.api)

                // setup: three sessions with a subscriber, sixty throttled downloads created through every instance.
                // The origin holds every request until all are created: on a loaded machine creating them took longer
                // than downloading them, so that no instance ever held three at once (CI).
                let events = Self.subscribed.map { "\"\($0)\"" }.joined(separator: ", ")
                for (index, session) in Self.sessions.enumerated() {
                    let webhook = #"{"url": "\#(receiver.url)", "events": [\#(events)]}"#
                    let configuration = #"{"maximumConnectionsPerHost": 20, "timeoutIntervalForRequest": 600, "webhook": \#(webhook)}"#
                    try await apis[index].createSession(session, configuration: configuration)
                }
                for number in 0..<60 {
                    let session = Self.sessions[number % 3]
                    let name = "\(session)-\(number / 3 + 1)"
                    let url = origin.url("/files/\(Self.size)?name=\(name)&faults=0&bytesPerSecond=300000&hold=created")
                    _ = try await apis[number % 3 == 0 ? 1 : number % 3 == 1 ? 2 : 0].createTask(session, url: url)
                }
                origin.open(gate: "created")
                let database = TestDatabase(dataDirectory: dataDirectory)
                // the index of each instance ("i1" is 0) holding transfers under way with a checkpoint, and those
                let checkpointed = """
                    SELECT CAST(SUBSTR(lease_owner, 2) AS INTEGER) - 1, session_id, task_identifier FROM tasks
                    WHERE state = 'running' AND partial_bytes > 0 AND lease_owner IS NOT NULL
                    """
                var (killed, held) = (-1, [[Int64]]())
                try await waitUntil(timeout: .seconds(90)) {
                    let byInstance = Dictionary(grouping: try await database.rows(checkpointed)) { $0[0] }
                    guard let (instance, rows) = byInstance.first(where: { $0.value.count >= 3 }) else { return false }
                    (killed, held) = (Int(instance), rows.map { Array($0.dropFirst()) })
                    return true
                }

                // act: a crash of an instance with transfers under way. What it held is read before: under load a
                // lease can lapse in the moments around the kill, and the transfer move on to a survivor.
                try await instances[killed].kill()
                let survivors = apis.indices.filter { $0 != killed }.map { apis[$0] }
                let sessionRows = try await database.rows("SELECT id FROM sessions ORDER BY id").map { $0[0] }
                try await waitUntil(timeout: .seconds(180)) {
                    for session in Self.sessions where try await !survivors[0].tasks(session).allSatisfy({ $0.state == "completed" }) {
                        return false
                    }
                    return true
                }

                // verify: every download once, whole, announced once, in gap-free sequences, delivered in order
                for session in Self.sessions {
                    let tasks = try await survivors[1].tasks(session)
                    #expect(tasks.count == 20)
                    for task in tasks {
                        #expect(task.error == nil, "\(session) task \(task.taskIdentifier): \(task.error?.message ?? "")")
                        #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size), "\(session) task \(task.taskIdentifier)")
                    }
                    let log = try await survivors[0].allEvents(session)
                    #expect(log.map(\.sequence) == Array(1...log.count), "\(session): sequences 1, 2, 3, … without a gap")
                    let completions = log.filter { $0.type == "task.completed" }.compactMap(\.taskIdentifier)
                    #expect(completions.sorted() == Array(1...20), "\(session): one task.completed per task")

                    try await survivors[1].waitUntilAllAcknowledged(session)
                    let expected = log.filter { Self.subscribed.contains($0.type) }.map(\.sequence)
                    let arrivals = receiver.received.filter { $0.session == session }.map(\.sequence)
                    #expect(Array(Set(arrivals)).sorted() == expected, "\(session): every subscribed event delivered")
                    var highest = 0
                    for sequence in arrivals {
                        // A delivery the killed instance sent but did not record may come again; none comes early.
                        #expect(sequence <= expected.first { $0 > highest } ?? highest, "\(session): \(sequence) after \(highest)")
                        highest = max(highest, sequence)
                    }
                }
                // the recorded SHA-256 is the stream's: the bytes on disk are read back too
                for row in try await database.rows("SELECT id FROM tasks") {
                    let content = try Data(contentsOf: URL(fileURLWithPath: "\(dataDirectory)/tasks/\(row[0])"))
                    #expect(OriginContent.sha256(of: content) == OriginContent.sha256(size: Self.size), "the content of task row \(row[0])")
                }
                for row in held {
                    let session = Self.sessions[try #require(sessionRows.firstIndex(of: row[0]))]
                    let taskIdentifier = Int(row[1])
                    // Under load a survivor's renewal may come late too, and the task move once more: each of its
                    // resumptions continues at a checkpoint, asked of the origin from there.
                    let resumptions = try await survivors[0].allEvents(session)
                        .filter { $0.type == "task.resumed_at_offset" && $0.taskIdentifier == taskIdentifier }.map(\.data)
                    #expect(
                        !resumptions.isEmpty && resumptions.allSatisfy { ($0.fileOffset ?? 0) > 0 && $0.restartReason == nil },
                        "\(session) task \(taskIdentifier) continued at a checkpoint: \(resumptions)"
                    )
                    for offset in resumptions.compactMap(\.fileOffset) {
                        #expect(
                            origin.ranges("\(session)-\(taskIdentifier)").contains("bytes=\(offset)-"),
                            "\(session) task \(taskIdentifier)"
                        )
                    }
                }
                for (index, instance) in instances.enumerated() where index != killed { try await instance.terminate() }
            }
        }
    }
}
