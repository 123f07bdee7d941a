import Dispatch
import Foundation
import Synchronization
import Testing
import TransferdDomain
import TransferdTestSupport

/// A renewal tells the leases it renewed from those it no longer holds, and, on PostgreSQL, waits for no row a
/// write holds: it once did, while holding the rows it had renewed, and a write waiting for one of those deadlocked
/// with it (a second's stall of every write of the instance, each time). On the suite's database.
@Suite struct LeaseRenewalTests {
    @Test func aRenewalPassesOverTheRowsAWriteHoldsAndReportsTheLeasesItLost() async throws {
        try await SuiteStore.fresh { store in
            // setup: three transfers of this instance, the third's task taken over since by another instance
            let now = Date()
            let ids = try await store.write { repositories in
                let session = try await StoredRows.session("leases", at: now, repositories)
                var ids: [Int64] = []
                for number in 1...3 {
                    let task = try await repositories.tasks.insert(StoredRows.download(number, in: session, at: now))
                    let owner = number == 3 ? "other" : "this"
                    try await repositories.queue.lease(ids: [task.rowID], TaskLease(owner: owner, expiresAt: now + 30), startedAt: now)
                    ids.append(task.rowID)
                }
                return ids
            }
            let renewal = { @Sendable in
                try await store.renew { try await $0.queue.renewLeases(ids: ids, owner: "this", until: now + 60) }
            }

            // act: renew without a write in the way
            let free = try await renewal()

            // verify
            #expect(free == [ids[0]: .renewed(.running), ids[1]: .renewed(.running)])

            guard store.isShared else { return }  // SQLite's renewals are writes, which take turns
            // act: renew while a write holds the first task's row (it waits, without holding a thread, to be let go)
            let (holding, release) = (AsyncStream.makeStream(of: Void.self), AsyncStream.makeStream(of: Void.self))
            defer { release.continuation.finish() }
            let write = Task {
                try await store.write { repositories in
                    _ = try await repositories.tasks.find(id: ids[0])
                    holding.continuation.yield()
                    for await _ in release.stream {}
                }
            }
            for await _ in holding.stream { break }
            let busy = try await renewal()
            release.continuation.finish()
            try await write.value

            // verify: the held row is busy rather than lost, and the next renewal renews it
            #expect(busy == [ids[0]: .busy, ids[1]: .renewed(.running)])
            #expect(try await renewal() == free)
        }
    }

    @Test func aDeliveryLeaseRenewalRenewsTheSessionsItsOwnerHoldsAndNoOther() async throws {
        try await SuiteStore.fresh { store in
            // setup: three sessions whose deliveries this instance leases, and one another instance leases
            let now = Date()
            let ids = try await store.write { repositories in
                var ids: [Int64] = []
                for number in 1...4 {
                    let session = try await StoredRows.session("deliveries-\(number)", at: now, repositories)
                    let owner = number == 4 ? "other" : "this"
                    #expect(try await repositories.sessions.leaseDeliveries(sessionID: session, owner: owner, until: now + 30, at: now))
                    ids.append(session)
                }
                return ids
            }

            // act: renew one lease, then all four (one statement for any number of them)
            let one = try await store.renew {
                try await $0.sessions.renewDeliveryLeases(sessionIDs: [ids[0]], owner: "this", until: now + 60)
            }
            let all = try await store.renew { try await $0.sessions.renewDeliveryLeases(sessionIDs: ids, owner: "this", until: now + 60) }

            // verify: the other instance's lease is not this one's to renew, and is not renewed
            #expect(Array(one.keys) == [ids[0]])
            #expect(Set(all.keys) == Set(ids[0...2]))
            let others = try await store.read { try await $0.sessions.nextDeliveryLeaseExpiry(notOwnedBy: "this") }
            #expect(abs(try #require(others).timeIntervalSince(now + 30)) < 0.01)
        }
    }
}
