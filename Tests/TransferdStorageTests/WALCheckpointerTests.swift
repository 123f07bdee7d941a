import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdStorage

@Suite struct WALCheckpointerTests {
    @Test func theLogIsCheckpointedBesideTheWriter() async throws {
        // setup: the same 300 transactions on a store that checkpoints past 50 pages and on one that never does
        let (checkpointed, checkpointedPath) = try await Self.store(checkpointPages: 50)
        let (unchecked, _) = try await Self.store(checkpointPages: .max)

        // act: after each 50 transactions (well past 50 pages), the checkpointed store's next write waits for its
        // checkpointer to have caught up once, however slow a loaded machine makes the thread beside the writer
        for store in [checkpointed, unchecked] {
            for number in 0..<300 {
                try await store.write { _ = try await $0.sessions.insert(Self.session(number)) }
                if store === checkpointed, number % 50 == 49 {
                    let checkpoints = number / 50 + 1
                    try await waitUntil { checkpointed.checkpointer.checkpoints >= checkpoints }
                }
            }
        }

        // verify: the checkpointer's connection checkpointed, the other store's never did. (How short the log stays
        // depends on how the threads are scheduled: CI saw it grow under a loaded parallel run, so that is for a
        // benchmark to measure, not for this test to assert.)
        #expect(unchecked.checkpointer.checkpoints == 0)
        // verify: nothing was lost on the way into the database
        let reopened = try await SQLiteStore(path: checkpointedPath, vault: .forTests)
        #expect(try await reopened.read { try await $0.sessions.list(after: 0, limit: 500, tenantID: nil) }.count == 300)
    }

    private static func store(checkpointPages: Int32) async throws -> (SQLiteStore, String) {
        let directory = DataDirectories.temporary()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/transferd.sqlite"
        return await (try SQLiteStore(path: path, vault: .forTests, checkpointPages: checkpointPages), path)
    }

    private static func session(_ number: Int) -> Session {
        Session(identifier: "session-\(number)", tenantId: 1, configuration: .default, createdAt: Date())
    }

}
