import Foundation
import Synchronization
import Testing
import TransferdDomain
import TransferdServices
import TransferdStorage
import TransferdTestSupport

@Suite struct GroupCommitTests {
    @Test func callersThatArriveWhileATransactionWaitsForTheWriterShareIt() async throws {
        // setup: the first transaction is held before it starts until 49 more callers wait in line
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store)

        // act
        let identifiers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for number in 0..<50 {
                group.addTask { (number, try await commit.write { try await Self.insertSession(number, $0) }) }
                if number == 0 { try await waitUntil { store.writes == 1 } }
            }
            try await waitUntil { commit.waiting == 49 }
            store.open()
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        // verify: every caller got its own result, from one transaction
        #expect(identifiers == Dictionary(uniqueKeysWithValues: (0..<50).map { ($0, "session-\($0)") }))
        #expect(store.writes == 1)
        #expect(try await Self.storedIdentifiers(store).count == 50)
    }

    @Test func aGroupRunsItsWorkInTheOrderOfTheSessionsItWritesFor() async throws {
        // setup: the leader's transaction waits for the writer while callers for other sessions, and one for none,
        // arrive in no order
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store)
        let ran = SessionsRun()
        let sessions: [Int64?] = [5, 2, nil, 9, 1, 2]

        // act
        let answers = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
            for (index, session) in sessions.enumerated() {
                group.addTask {
                    let answer = try await commit.write(forSession: session) { _ in
                        ran.sessions.withLock { $0.append(session) }
                        return session
                    }
                    return (index, answer)
                }
                if index == 0 { try await waitUntil { store.writes == 1 } } else { try await waitUntil { commit.waiting == index } }
            }
            store.open()
            return try await group.reduce(into: [Int: Int64?]()) { $0[$1.0] = $1.1 }
        }

        // verify: one transaction ran them by session, those of one session as they came, the one for none last;
        // each caller got its own answer
        #expect(ran.sessions.withLock { $0 } == [1, 2, 2, 5, 9, nil])
        #expect(answers == Dictionary(uniqueKeysWithValues: sessions.enumerated().map { ($0, $1) }))
        #expect(store.writes == 1)
    }

    @Test func aCancelledLeaderStillCommitsTheWorkOfItsFollowers() async throws {
        // setup: the leader's transaction waits for the writer, with a follower in line behind it
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store)
        let leader = Task { try await commit.write { try await Self.insertSession(0, $0) } }
        try await waitUntil { store.writes == 1 }
        let follower = Task { try await commit.write { try await Self.insertSession(1, $0) } }
        try await waitUntil { commit.waiting == 1 }

        // act: the leader's caller goes away (a transfer stopped) before the writer takes the transaction
        leader.cancel()
        store.open()

        // verify: the follower's work was written, and so was the leader's
        #expect(try await follower.value == "session-1")
        #expect(try await leader.value == "session-0")
        #expect(try await Self.storedIdentifiers(store) == ["session-0", "session-1"])
    }

    @Test func theNextTransactionIsSubmittedWhileOneIsWritten() async throws {
        // setup: the first caller's work holds its transaction open on the writer
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        store.open()
        let commit = GroupCommit(store: store)
        let (written, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))

        // act
        let identifiers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            group.addTask {
                (
                    0,
                    try await commit.write { repositories in
                        written.signal()
                        release.wait()
                        return try await Self.insertSession(0, repositories)
                    }
                )
            }
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    written.wait()
                    continuation.resume()
                }
            }
            for number in 1..<10 {
                group.addTask { (number, try await commit.write { try await Self.insertSession(number, $0) }) }
            }
            // verify: the first newcomer submitted the next transaction at once; the others wait for it to start
            try await waitUntil { store.writes == 2 && commit.waiting == 8 }
            release.signal()
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        // verify: two transactions, every caller answered
        #expect(identifiers == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, "session-\($0)") }))
        #expect(store.writes == 2)
        #expect(try await Self.storedIdentifiers(store).count == 10)
    }

    @Test func onlyTheInputsThatFailGetAnError() async throws {
        // setup: odd inputs fail
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store)
        let write = { @Sendable (number: Int) in
            try await commit.write { repositories in
                guard number.isMultiple(of: 2) else { throw DomainError.conflict("odd") }
                return try await Self.insertSession(number, repositories)
            }
        }

        // act
        let outcomes = await Self.callTogether(10, store: store, commit: commit) { number in (try? await write(number)) != nil }

        // verify: the even inputs are written, the odd ones refused: the group's first transaction, without
        // savepoints, was rolled back at the first refusal, and the second wrote each input in a savepoint of its own
        #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0.isMultiple(of: 2)) }))
        #expect(store.writes == 2)
        #expect(try await Self.storedIdentifiers(store) == ["session-0", "session-2", "session-4", "session-6", "session-8"])
    }

    @Test func aGroupHoldsAtMostItsSizeAndTheRestLeadTheNext() async throws {
        // setup: groups of four
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store, maximumGroup: 4)

        // act
        let outcomes = await Self.callTogether(10, store: store, commit: commit) { number in
            (try? await commit.write { try await Self.insertSession(number, $0) }) != nil
        }

        // verify: 4 + 4 + 2
        #expect(outcomes.values.allSatisfy { $0 } && outcomes.count == 10)
        #expect(store.writes == 3)
        #expect(try await Self.storedIdentifiers(store).count == 10)
    }

    @Test func aTransactionThatFailsBeforeGatheringHandsTheLeadOn() async throws {
        // setup: the first transaction fails before its body runs
        let store = await GatedStore(
            try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests),
            failingFirstWrite: .beforeItsWork
        )
        let commit = GroupCommit(store: store)

        // act
        let outcomes = await Self.callTogether(10, store: store, commit: commit) { number in
            (try? await commit.write { try await Self.insertSession(number, $0) }) != nil
        }

        // verify: only the leader of the failed transaction got the error; the next caller led the others
        #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0 != 0) }))
        #expect(store.writes == 2)
        #expect(try await Self.storedIdentifiers(store).count == 9)
    }

    @Test func aTransactionThatDoesNotCommitAnswersEveryCallerInItWithItsError() async throws {
        // setup: the first transaction fails once every caller's work in it is done
        let store = await GatedStore(
            try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests),
            failingFirstWrite: .atItsCommit
        )
        let commit = GroupCommit(store: store)

        // act
        let outcomes = await Self.callTogether(10, store: store, commit: commit) { number in
            (try? await commit.write { try await Self.insertSession(number, $0) }) != nil
        }

        // verify: nobody's work was written, and everybody heard so
        #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, false) }))
        #expect(try await Self.storedIdentifiers(store).isEmpty)
    }

    @Test func aGroupWritesTheItemsOfABatchInOneCallBesideWorkOfItsOwn() async throws {
        // setup: sessions inserted by a batch writer that records each call
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store)
        let writer = SessionInserts()

        // act: eight items of the batch, for two sessions, and two callers with work of their own, in one group
        let outcomes = await Self.callTogether(10, store: store, commit: commit) { number in
            guard number < 8 else { return (try? await commit.write { try await Self.insertSession(number, $0) }) != nil }
            return (try? await commit.write(number, by: writer, forSession: number.isMultiple(of: 2) ? 7 : 3)) == "session-\(number)"
        }

        // verify: one call a session wrote its four items, in the order of the sessions, and each caller got its own
        // outcome
        #expect(outcomes.values.allSatisfy { $0 } && outcomes.count == 10)
        #expect(writer.calls.withLock { $0 }.map { $0.sorted() } == [[1, 3, 5, 7], [0, 2, 4, 6]])
        #expect(store.writes == 1)
        #expect(try await Self.storedIdentifiers(store).count == 10)
    }

    @Test func anItemOfABatchThatFailsIsWrittenAloneAndOnlyItGetsTheError() async throws {
        // setup: the batch writer refuses item 3
        let store = await GatedStore(try SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests))
        let commit = GroupCommit(store: store)
        let writer = SessionInserts(refusing: 3)

        // act
        let outcomes = await Self.callTogether(6, store: store, commit: commit) { number in
            (try? await commit.write(number, by: writer)) != nil
        }

        // verify: the batch was rolled back at the refusal, then each item was written in a savepoint of its own
        #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<6).map { ($0, $0 != 3) }))
        let calls = writer.calls.withLock { $0 }
        #expect(calls.first?.sorted() == Array(0..<6))
        #expect(calls.dropFirst().allSatisfy { $0.count == 1 } && calls.dropFirst().flatMap { $0 }.sorted() == Array(0..<6))
        #expect(try await Self.storedIdentifiers(store) == ["session-0", "session-1", "session-2", "session-4", "session-5"])
    }

    /// Calls `call` for `count` numbers at once: number 0 first, whose transaction is held before it starts until
    /// the others wait in line. Returns each number's outcome.
    private static func callTogether(
        _ count: Int,
        store: GatedStore,
        commit: GroupCommit,
        _ call: @escaping @Sendable (Int) async -> Bool
    ) async -> [Int: Bool] {
        await withTaskGroup(of: (Int, Bool).self) { group in
            for number in 0..<count {
                group.addTask { (number, await call(number)) }
                if number == 0 { try? await waitUntil { store.writes == 1 } }
            }
            try? await waitUntil { commit.waiting == count - 1 }
            store.open()
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    private static func storedIdentifiers(_ store: some Store) async throws -> [String] {
        try await store.read { try await $0.sessions.list(after: 0, limit: 100, tenantID: nil) }.map(\.identifier).sorted()
    }

    private static func insertSession(_ number: Int, _ repositories: any Repositories) async throws -> String {
        let session = Session(identifier: "session-\(number)", tenantId: 1, configuration: .default, createdAt: Date())
        return try await repositories.sessions.insert(session).identifier
    }
}

/// A batch writer that inserts a session for each number it is given, refusing one, and records its calls.
private final class SessionInserts: BatchWrite {
    let calls = Mutex<[[Int]]>([])
    private let refused: Int?

    init(refusing refused: Int? = nil) {
        self.refused = refused
    }

    func write(_ items: [Int], _ repositories: any Repositories) async throws -> [String] {
        calls.withLock { $0.append(items) }
        var identifiers: [String] = []
        for number in items {
            guard number != refused else { throw DomainError.conflict("refused") }
            let session = Session(identifier: "session-\(number)", tenantId: 1, configuration: .default, createdAt: Date())
            identifiers.append(try await repositories.sessions.insert(session).identifier)
        }
        return identifiers
    }
}

/// A store whose first write waits until the test opens it (and then fails, when told to, before the work or once it
/// is done, as a commit that fails), and that counts its writes.
/// The sessions whose work ran, in order.
private final class SessionsRun: Sendable {
    let sessions = Mutex<[Int64?]>([])
}

private final class GatedStore: Store {
    enum Failure {
        case beforeItsWork
        case atItsCommit
    }

    private let store: SQLiteStore
    private let failingFirstWrite: Failure?
    private let writeCount = Mutex(0)
    private let gate = AsyncStream.makeStream(of: Void.self)

    init(_ store: SQLiteStore, failingFirstWrite: Failure? = nil) {
        self.store = store
        self.failingFirstWrite = failingFirstWrite
    }

    var writes: Int { writeCount.withLock { $0 } }

    func open() {
        gate.continuation.finish()
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await store.read(body)
    }

    func lookup<T: Sendable>(
        counted kind: StoreStatistics.Transaction,
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T {
        try await store.lookup(counted: kind, body)
    }

    func alone<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T? {
        nil
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        let first = writeCount.withLock { count in
            count += 1
            return count == 1
        }
        guard first else { return try await store.write(body) }
        for await _ in gate.stream {}
        switch failingFirstWrite {
        case .beforeItsWork: throw DomainError.conflict("the first write fails")
        case .atItsCommit:
            return try await store.write { repositories in
                _ = try await body(repositories)
                throw DomainError.conflict("the first commit fails")
            }
        case nil: return try await store.write(body)
        }
    }

    func claim<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await store.claim(body)
    }

    func renew<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await store.renew(body)
    }

    func isReachable() async -> Bool {
        await store.isReachable()
    }

    var statistics: StoreStatistics? { nil }
}
