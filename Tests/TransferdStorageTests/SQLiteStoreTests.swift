import Foundation
import GRDB
import Synchronization
import Testing
import TransferdDomain
import TransferdStorage
import TransferdTestSupport

@Suite struct SQLiteStoreTests {
    @Test func opensInWALModeWithEveryMigrationApplied() async throws {
        let store = try await SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests)

        #expect(try await store.journalMode() == "wal")
        // Every commit synced before it is acknowledged (GRDB's WAL mode would sync only at checkpoints).
        #expect(try await store.writerSynchronous() == 2)
        let (all, applied) = try await store.migrations()
        #expect(Set(all) == applied)
        #expect(applied.contains("0001_initial"))
    }

    @Test func shipsEveryMigrationOfTheMigrationsFolder() throws {
        // A file that Package.swift does not list as a resource would never be applied.
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
        #expect(try SQLiteStore.migrator().migrations == files.map { String($0.dropLast(".sql".count)) }.sorted())
    }

    @Test func anIsolatedPartThatFailsIsUndoneAndTheRestCommits() async throws {
        // setup
        let store = try await SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests)
        let runs = Runs()

        // act: the second part writes, registers an action, then fails
        let outcomes = try await store.write { repositories in
            var outcomes: [Bool] = []
            for name in ["a", "b", "c"] {
                do {
                    try await repositories.isolated {
                        _ = try await repositories.sessions.insert(Self.session(name))
                        repositories.afterCommit { runs.count.withLock { $0 += 1 } }
                        if name == "b" { throw DomainError.conflict("refused") }
                    }
                    outcomes.append(true)
                } catch {
                    outcomes.append(false)
                }
            }
            return outcomes
        }

        // verify: b's session and b's action are gone; a and c committed
        #expect(outcomes == [true, false, true])
        #expect(runs.count.withLock { $0 } == 2)
        let stored = try await store.read { try await $0.sessions.list(after: 0, limit: 10, tenantID: nil) }
        #expect(stored.map(\.identifier) == ["a", "c"])
    }

    @Test(arguments: [1, 4])
    func aReadSeesOneSnapshotWhileWritesCommit(readConnections: Int) async throws {
        // setup: one read connection, which every read waits its turn for, or several
        let dataDirectory = DataDirectories.temporary()
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let store = try await SQLiteStore(
            path: dataDirectory + "/transferd.sqlite",
            vault: .forTests,
            readConnections: readConnections,
            readConnectionLimit: readConnections
        )

        // act: reads that list the sessions twice, while sessions are inserted one transaction at a time
        let writes = Runs()
        let writer = Task {
            for index in 0..<200 {
                try await store.write { _ = try await $0.sessions.insert(Self.session("s\(index)")) }
                writes.count.withLock { $0 += 1 }
            }
        }
        var reads: [(first: Int, second: Int)] = []
        while writes.count.withLock({ $0 }) < 200 {
            reads.append(
                try await store.read { repositories in
                    let first = try await repositories.sessions.list(after: 0, limit: 1000, tenantID: nil).count
                    return (first, try await repositories.sessions.list(after: 0, limit: 1000, tenantID: nil).count)
                }
            )
            await Task.yield()
        }
        try await writer.value

        // verify: each read's two lists agree, and reads saw the writes progress
        #expect(reads.allSatisfy { $0.first == $0.second })
        #expect(Set(reads.map(\.first)).count > 1)
    }

    /// Reads suspended in their transactions (each awaits a gate while holding its connection) keep no other read
    /// waiting while fewer than the limit are under way: a connection is opened for it. With a fixed few connections
    /// handed from read to read in line, such suspensions made a convoy of every read (issue 62).
    @Test func aReadWaitsForNoOtherWhileFewerThanTheLimitAreUnderWay() async throws {
        // setup: one connection opened at once, up to four as reads need them
        let dataDirectory = DataDirectories.temporary()
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let store = try await SQLiteStore(
            path: dataDirectory + "/transferd.sqlite",
            vault: .forTests,
            readConnections: 1,
            readConnectionLimit: 4
        )
        _ = try await store.write { try await $0.sessions.insert(Self.session("held")) }
        let gate = Gate()

        // act: three reads hold their connections, suspended; then a read and a lookup of one statement
        let held = (0..<3).map { _ in
            Task {
                try await store.read { repositories in
                    let first = try await repositories.sessions.list(after: 0, limit: 10, tenantID: nil).count
                    await gate.pass()
                    return first + (try await repositories.sessions.list(after: 0, limit: 10, tenantID: nil).count)
                }
            }
        }
        try await waitUntil { gate.waiting == 3 }
        let read = try await store.read { try await $0.sessions.list(after: 0, limit: 10, tenantID: nil).count }
        let lookedUp = try await store.lookup { try await $0.sessions.latest(identifier: "held", tenantID: 1) }

        // verify: both answered while three reads held their connections; the held ones then finish
        #expect(read == 1 && lookedUp?.identifier == "held")
        gate.open()
        for task in held { #expect(try await task.value == 2) }
    }

    /// A lookup sends one statement without a transaction; one whose body sends more runs again as a read, and
    /// answers as a read would.
    @Test func aLookupOfSeveralStatementsAnswersAsARead() async throws {
        let store = try await SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests)
        for name in ["a", "b"] { _ = try await store.write { try await $0.sessions.insert(Self.session(name)) } }

        let both = try await store.lookup { repositories in
            let a = try await repositories.sessions.latest(identifier: "a", tenantID: 1)
            let b = try await repositories.sessions.latest(identifier: "b", tenantID: 1)
            return [a?.identifier, b?.identifier]
        }

        #expect(both == ["a", "b"])
    }

    /// Callers that wait until the test opens it.
    private final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        var waiting: Int { state.withLock { $0.waiting.count } }

        func pass() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    private static func session(_ name: String) -> Session {
        Session(identifier: name, tenantId: 1, configuration: .default, createdAt: Date())
    }

    private final class Runs: Sendable {
        let count = Mutex(0)
    }

    @Test func migrateAppliesOnceAndThenHasNothingToDo() async throws {
        let dataDirectory = DataDirectories.temporary()
        let all = try SQLiteStore.migrator().migrations
        #expect(all.starts(with: ["0001_initial", "0002_webhooks", "0003_task_checksum"]))
        #expect(try await SQLiteStore.migrate(dataDirectory: dataDirectory, vault: .forTests) == all)
        #expect(try await SQLiteStore.migrate(dataDirectory: dataDirectory, vault: .forTests) == [])
    }
}
