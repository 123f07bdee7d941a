import Foundation
import Synchronization
import Testing
import TransferdDomain
import TransferdServices
import TransferdStorage

@Suite struct GroupCommitTests {
    @Test func callersThatArriveDuringATransactionShareTheNext() async throws {
        // setup: the first transaction is held open until 49 more callers wait in line
        let store = GatedStore(try SQLiteStore(dataDirectory: TestService.temporaryDataDirectory()))
        let commit = GroupCommit(store: store)

        // act
        let identifiers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for number in 0..<50 {
                group.addTask { (number, try await commit.write { try Self.insertSession(number, $0) }) }
                if number == 0 { try await waitUntil { store.writes == 1 } }
            }
            try await waitUntil { commit.waiting == 49 }
            store.open()
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        // verify: every caller got its own result; two transactions in all
        #expect(identifiers == Dictionary(uniqueKeysWithValues: (0..<50).map { ($0, "session-\($0)") }))
        #expect(store.writes == 2)
        let stored = try await store.read { try $0.sessions.list(after: 0, limit: 100, tenantID: nil) }
        #expect(stored.count == 50)
    }

    @Test func onlyTheInputsThatFailGetAnError() async throws {
        // setup: odd inputs fail
        let store = GatedStore(try SQLiteStore(dataDirectory: TestService.temporaryDataDirectory()))
        let commit = GroupCommit(store: store)
        let write = { @Sendable (number: Int) in
            try await commit.write { repositories in
                guard number.isMultiple(of: 2) else { throw DomainError.conflict("odd") }
                return try Self.insertSession(number, repositories)
            }
        }

        // act
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for number in 0..<10 {
                group.addTask { (number, (try? await write(number)) != nil) }
                if number == 0 { try? await waitUntil { store.writes == 1 } }
            }
            try? await waitUntil { commit.waiting == 9 }
            store.open()
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        // verify: the even inputs are written, the odd ones refused, in the same two transactions
        #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0.isMultiple(of: 2)) }))
        #expect(store.writes == 2)
        let stored = try await store.read { try $0.sessions.list(after: 0, limit: 100, tenantID: nil) }
        #expect(stored.map(\.identifier).sorted() == ["session-0", "session-2", "session-4", "session-6", "session-8"])
    }

    private static func insertSession(_ number: Int, _ repositories: any Repositories) throws -> String {
        let session = Session(identifier: "session-\(number)", tenantId: 1, configuration: .default, createdAt: Date())
        return try repositories.sessions.insert(session).identifier
    }
}

/// A store whose first write waits until the test opens it, and that counts its writes.
private final class GatedStore: Store {
    private let store: SQLiteStore
    private let writeCount = Mutex(0)
    private let gate = AsyncStream.makeStream(of: Void.self)

    init(_ store: SQLiteStore) {
        self.store = store
    }

    var writes: Int { writeCount.withLock { $0 } }

    func open() {
        gate.continuation.finish()
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await store.read(body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        let first = writeCount.withLock { count in
            count += 1
            return count == 1
        }
        if first { for await _ in gate.stream {} }
        return try await store.write(body)
    }

    func isReachable() async -> Bool {
        await store.isReachable()
    }
}
