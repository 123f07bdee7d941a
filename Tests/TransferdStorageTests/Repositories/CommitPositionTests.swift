import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// Every event a write commits reaches its tenant's log, however the write appended it. On PostgreSQL the first
/// append of a transaction takes the commit's position in its own statement (`CommitNumbering`): an append undone
/// with the isolated part it was made in gives the position back, and the next append takes it again; without one,
/// the committed events would be missing from the tenant's log. On the suite's database.
@Suite struct CommitPositionTests {
    struct Refusal: Error {}

    @Test func eventsReachTheTenantsLogWhenAnIsolatedAppendWasUndone() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await SuiteStore.with(dataDirectory: dataDirectory, databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory)) {
            store in
            let session = try await store.write { repositories in
                try await repositories.sessions.insert(Session(identifier: "s", tenantId: 1, configuration: .default, createdAt: Date()))
            }
            let event: @Sendable (EventPayload) -> Event = { payload in
                Event(sessionId: session.rowID, sequence: 0, payload: payload, createdAt: Date(), traceparent: nil)
            }
            let start = try await store.lookup { try await $0.events.presentCursor() }

            // act: a write whose isolated append fails, then appends twice; a write whose isolated append commits
            try await store.write { repositories in
                _ = try? await repositories.isolated {
                    _ = try await repositories.events.append([
                        event(.taskProgress(.init(bytesWritten: 1, totalBytesWritten: 1, totalBytesExpectedToWrite: -1)))
                    ])
                    throw Refusal()
                }
                _ = try await repositories.events.append([event(.taskCreated(.init(.suspended)))])
                _ = try await repositories.events.append([event(.taskResumed(.init(.running)))])
            }
            try await store.write { repositories in
                try await repositories.isolated {
                    _ = try await repositories.events.append([event(.taskCompleted(.init(error: nil, metrics: nil)))])
                }
            }

            // verify: the committed events, in order, and the undone one's sequence taken again
            let listed = try await store.lookup { try await $0.events.list(tenantID: 1, after: start, limit: 100) }
            #expect(listed.map(\.event.type) == [.taskCreated, .taskResumed, .taskCompleted])
            #expect(listed.map(\.event.sequence) == [1, 2, 3])
        }
    }
}
