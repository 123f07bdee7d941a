import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// A creation asked to start its tasks where it runs (``TaskCreation/Start``) leases them to its instance in its own
/// statement, as a claim would, sparing the claim: only while no other task waits, the session's transfers to the
/// origin stay within its `maximumConnectionsPerHost`, and no claim holds the turn. A claim that follows counts them
/// under way. On PostgreSQL.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct StartOnCreationTests {
    private static let now = Date()

    @Test(arguments: ["nothing waits", "another task waits", "host limit reached", "turn held"])
    func aCreationStartsItsTaskOnlyWhereAClaimWouldHave(situation: String) async throws {
        try await SuiteStore.fresh { store in
            // setup
            let session = try await store.write { repositories in
                let session = try await StoredRows.session("started", at: Self.now, repositories)
                let other = try await repositories.tasks.insert(StoredRows.download(1, in: session, at: Self.now))
                _ = try await repositories.sessions.takeTaskIdentifiers(1, sessionID: session)
                switch situation {
                case "another task waits": break
                case "host limit reached":
                    try await repositories.queue.lease(
                        ids: [other.rowID],
                        TaskLease(owner: "i2", expiresAt: Self.now + 60),
                        startedAt: Self.now
                    )
                default:
                    var done = other
                    done.state = .completed
                    try await repositories.tasks.update(done)
                }
                return session
            }
            let (holding, release) = (AsyncStream.makeStream(of: Void.self), AsyncStream.makeStream(of: Void.self))
            let claim = Task {
                guard situation == "turn held" else { return }
                try await store.claim { repositories in
                    _ = try await repositories.queue.claimable(dueAfter: Self.now, leasesAt: Self.now, owner: "i2", ending: [], depth: 1)
                    holding.continuation.yield()
                    for await _ in release.stream { break }
                }
            }
            if situation == "turn held" { for await _ in holding.stream { break } }

            // act
            let written = try await store.alone { try await $0.tasks.create(Self.creation(in: session)) }
            release.continuation.yield()
            try await claim.value

            // verify: started (leased to i1, its revision answered) only when nothing stood in the way
            let created = try #require(written ?? nil)
            let starts = situation == "nothing waits"
            #expect(created.started.count == (starts ? 1 : 0))
            let task = try #require(created.tasks.first)
            let stored = try await store.read { try await $0.tasks.find(id: task.rowID) }
            #expect(stored?.lease?.owner == (starts ? "i1" : nil))
            #expect((stored?.startedAt != nil) == starts)
            #expect(task.lease?.owner == stored?.lease?.owner)
            guard starts else { return }
            // a claim that follows counts it under way, and finds nothing to claim
            let (overview, heads) = try await store.claim { repositories in
                try await repositories.queue.claimable(dueAfter: Self.now, leasesAt: Self.now, owner: "i2", ending: [], depth: 4)
            }
            #expect(overview.underway[HostQueue(sessionID: session, origin: task.origin)] == 1)
            #expect(heads.isEmpty)
        }
    }

    /// A download of the session to the origin of `StoredRows.download`, asked to start on "i1" where the session
    /// takes one transfer to an origin at a time.
    private static func creation(in session: Int64) -> TaskCreation {
        let task = StoredRows.download(0, in: session, at: now)
        return TaskCreation(
            sessionID: session,
            tasks: [task],
            events: [TaskCreation.events(starting: true)],
            admission: CreationAdmission(count: 1, needsStorage: true, maximumTasksPerSession: 10, defaultQuota: TenantQuota()),
            createdAt: now,
            traceparent: nil,
            start: TaskCreation.Start(
                lease: TaskLease(owner: "i1", expiresAt: now + 60),
                leasesAt: now,
                startedAt: now,
                origin: task.origin,
                maximumConnectionsPerHost: 1
            )
        )
    }
}
