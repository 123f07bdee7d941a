import Foundation
import Synchronization
import Testing
import TransferdDomain

@testable import transferd

/// Claims of two instances over PostgreSQL take turns (``ClaimTurn``, a claim without a transaction that holds a
/// session-level lock from its first read of the queue to its lease): the second reads the queue only once the
/// first's lease has committed, so it never claims what the first did; and a claim that fails lets the next one in. Two stores over the suite's database, as two
/// instances have.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct ClaimTurnTests {
    @Test func aClaimReadsTheQueueOnceTheClaimBeforeItHasLeased() async throws {
        try await Self.withTwoStores { first, second, database in
            // setup: a queued task
            let now = Date()
            let id = try await StoredRows.queuedDownload(in: "turns", at: now, first)

            // act: the first instance's claim reads the queue, taking its turn, while the second's claims; then leases
            // the task
            let (holding, release) = (AsyncStream.makeStream(of: Void.self), AsyncStream.makeStream(of: Void.self))
            // What a claim reads: the transfers under way, counted from the leases, and the claimable tasks.
            let read: @Sendable (any Repositories) async throws -> Claimable = { repositories in
                let (overview, heads) = try await repositories.queue.claimable(
                    dueAfter: now,
                    leasesAt: now,
                    owner: "",
                    ending: [],
                    depth: 1
                )
                return Claimable(underway: overview.underway.values.reduce(0, +), tasks: heads.map(\.task.rowID))
            }
            let firstClaim = Task {
                try await first.claim { repositories in
                    let heads = try await read(repositories)
                    holding.continuation.yield()
                    for await _ in release.stream { break }
                    try await repositories.queue.lease(ids: [id], TaskLease(owner: "first", expiresAt: now + 60), startedAt: now)
                    return heads
                }
            }
            for await _ in holding.stream { break }
            let secondRead = Mutex(false)
            let secondClaim = Task {
                try await second.claim { repositories in
                    let heads = try await read(repositories)
                    secondRead.withLock { $0 = true }
                    return heads
                }
            }
            // The second claim's read waits for the turn.
            try await waitUntil(timeout: .seconds(20)) {
                try await database.rows(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 7302 "
                        + "AND CAST(objid AS integer) = hashtext(current_schema())"
                ) == [[1]]
            }
            let readEarly = secondRead.withLock { $0 }
            release.continuation.yield()

            // verify: the first found the task claimable; the second found it leased, and counted it under way (its
            // read began before the lease, and is made again once it has the turn)
            #expect(try await firstClaim.value == Claimable(underway: 0, tasks: [id]))
            #expect(try await secondClaim.value == Claimable(underway: 1, tasks: []))
            #expect(!readEarly, "the second claim read while the first held the turn")
        }
    }

    @Test func aTaskSuspendedAfterAClaimReadItIsNotLeased() async throws {
        try await Self.withTwoStores { first, second, _ in
            // setup: a queued task
            let now = Date()
            let id = try await StoredRows.queuedDownload(in: "suspended", at: now, first)

            // act: a claim reads the task; another instance suspends it (the claim holds no row, so it need not wait);
            // the claim leases it
            let leased = try await first.claim { repositories in
                let heads = try await repositories.queue.claimable(dueAfter: now, leasesAt: now, owner: "i1", ending: [], depth: 1).1
                #expect(heads.map(\.task.rowID) == [id])
                try await second.write { repositories in
                    var task = try #require(try await repositories.tasks.find(id: id))
                    task.state = .suspended
                    try await repositories.tasks.update(task)
                }
                return try await repositories.queue.lease(ids: [id], TaskLease(owner: "i1", expiresAt: now + 60), startedAt: now)
            }

            // verify: the lease took nothing, and the task stays suspended and unleased
            #expect(leased == [])
            let task = try #require(try await first.read { try await $0.tasks.find(id: id) })
            #expect(task.state == .suspended)
            #expect(task.lease == nil)
        }
    }

    @Test func aClaimThatFailsLetsTheNextOneIn() async throws {
        try await Self.withTwoStores { first, second, _ in
            struct Failure: Error {}
            let read: @Sendable (any Repositories) async throws -> Void = { repositories in
                _ = try await repositories.queue.claimable(dueAfter: Date(), leasesAt: Date(), owner: "", ending: [], depth: 1)
            }
            // act: a claim fails after its read took the turn, and another leases nothing
            await #expect(throws: Failure.self) {
                try await first.claim { repositories in
                    try await read(repositories)
                    throw Failure()
                }
            }
            try await first.claim { try await read($0) }

            // verify: both instances claim again at once
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await first.claim { try await read($0) }
                    try await second.claim { try await read($0) }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    Issue.record("a claim waited for a turn nobody gave back")
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    private struct Claimable: Equatable {
        let underway: Int
        let tasks: [Int64]
    }

    private static func withTwoStores(_ body: (any Store, any Store, TestDatabase) async throws -> Void) async throws {
        let dataDirectory = DataDirectories.temporary()
        let databaseURL = SuiteDatabase.url(forDataDirectory: dataDirectory)
        try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { first in
            try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { second in
                try await body(first, second, TestDatabase(dataDirectory: dataDirectory))
            }
        }
    }
}
