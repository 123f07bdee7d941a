import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdStorage

/// A lookup is a read of one statement, sent without a transaction around it on PostgreSQL; a body that sends more
/// is answered as a read would answer it, whatever it made of the refusal. On the suite's database.
@Suite struct LookupTests {
    @Test func aLookupOfOneStatementIsOneRoundTripAndOneOfMoreReadsAsARead() async throws {
        try await SuiteStore.fresh { store in
            // setup
            let now = Date()
            let (session, task) = try await store.write { repositories in
                let session = try await StoredRows.session("lookup", at: now, repositories)
                return (session, try await repositories.tasks.insert(StoredRows.download(1, in: session, at: now)))
            }
            let sent = { store.statistics?.statements[.read, default: 0] ?? 0 }

            // act and verify: one statement, one round trip
            let before = sent()
            #expect(try await store.lookup { try await $0.tasks.find(id: task.rowID) }?.rowID == task.rowID)
            if store.isShared { #expect(sent() - before == 1, "no BEGIN or COMMIT around it") }

            // act and verify: two statements, and two whose second's refusal the body swallows, answer as a read
            let both = try await store.lookup { repositories in
                (try await repositories.sessions.find(id: session), try await repositories.tasks.find(id: task.rowID))
            }
            #expect(both.0?.identifier == "lookup" && both.1?.rowID == task.rowID)
            let swallowed = try await store.lookup { repositories in
                _ = try await repositories.sessions.find(id: session)
                return (try? await repositories.tasks.find(id: task.rowID))?.rowID
            }
            #expect(swallowed == task.rowID)
        }
    }
}
