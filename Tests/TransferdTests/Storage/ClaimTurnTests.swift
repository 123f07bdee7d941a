import Foundation
import Synchronization
import Testing
import TransferdDomain

@testable import transferd

/// Claims of two instances over PostgreSQL take turns (``ClaimTurn``, a claim without a transaction that holds a
/// session-level lock): the second reads the queue only once the first's lease has committed, so it never claims
/// what the first did; and a claim that fails lets the next one in. Two stores over the suite's database, as two
/// instances have.
@Suite(.enabled(if: TestService.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct ClaimTurnTests {
    @Test func aClaimReadsTheQueueOnceTheClaimBeforeItHasLeased() async throws {
        try await Self.withTwoStores { first, second, database in
            // setup: a queued task
            let now = Date()
            let id = try await first.write { repositories in
                try await repositories.tasks.insert(
                    StoredRows.download(1, in: try StoredRows.session("turns", at: now, repositories), at: now)
                ).rowID
            }

            // act: the first instance's claim holds its turn while the second's claims; then leases the task
            let (holding, release) = (AsyncStream.makeStream(of: Void.self), AsyncStream.makeStream(of: Void.self))
            let firstClaim = Task {
                try await first.claim { repositories in
                    let queued = try await repositories.tasks.find(id: id)
                    holding.continuation.yield()
                    for await _ in release.stream { break }
                    try await repositories.tasks.lease(ids: [id], TaskLease(owner: "first", expiresAt: now + 60), startedAt: now)
                    return queued?.lease?.owner
                }
            }
            for await _ in holding.stream { break }
            let secondClaimed = Mutex(false)
            let secondClaim = Task {
                try await second.claim { repositories in
                    secondClaimed.withLock { $0 = true }
                    return try await repositories.tasks.find(id: id)?.lease?.owner
                }
            }
            // The second claim waits for the turn, its body not begun.
            try await waitUntil(timeout: .seconds(20)) {
                try await database.rows(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 7302 "
                        + "AND CAST(objid AS integer) = hashtext(current_schema())"
                ) == [[1]]
            }
            let startedEarly = secondClaimed.withLock { $0 }
            release.continuation.yield()

            // verify: the first read the task unleased, the second read the first's lease
            #expect(try await firstClaim.value == nil)
            #expect(try await secondClaim.value == "first")
            #expect(!startedEarly, "the second claim ran while the first held the turn")
        }
    }

    @Test func aClaimThatFailsLetsTheNextOneIn() async throws {
        try await Self.withTwoStores { first, second, _ in
            struct Failure: Error {}
            // act: a claim fails after reading, and another leases nothing
            await #expect(throws: Failure.self) {
                try await first.claim { repositories in
                    _ = try await repositories.tasks.find(id: 1)
                    throw Failure()
                }
            }
            try await first.claim { _ in }

            // verify: both instances claim again at once
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await first.claim { _ in }
                    try await second.claim { _ in }
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

    private static func withTwoStores(_ body: (any Store, any Store, TestDatabase) async throws -> Void) async throws {
        let dataDirectory = TestService.temporaryDataDirectory()
        let databaseURL = TestService.databaseURL(forDataDirectory: dataDirectory)
        try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { first in
            try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { second in
                try await body(first, second, TestDatabase(dataDirectory: dataDirectory))
            }
        }
    }
}
