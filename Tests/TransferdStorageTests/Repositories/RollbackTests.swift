import Foundation
import Synchronization
import Testing
import TransferdDomain
import TransferdTestSupport

/// A step a write takes outside the database (a file's new name) is undone with the write: when its transaction
/// rolls back, and when the isolated part it was taken in fails while the rest commits. On the suite's database.
@Suite struct RollbackTests {
    struct Refusal: Error {}

    @Test func aWritesStepsOutsideTheDatabaseAreUndoneWithIt() async throws {
        let dataDirectory = DataDirectories.temporary()
        let undone = Mutex<[String]>([])
        try await SuiteStore.with(dataDirectory: dataDirectory, databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory)) {
            store in
            // a write whose body fails after its step
            await #expect(throws: Refusal.self) {
                try await store.write { repositories in
                    repositories.ifRolledBack { undone.withLock { $0.append("failed write") } }
                    throw Refusal()
                }
            }
            // a write that commits, with an isolated part that fails
            try await store.write { repositories in
                repositories.ifRolledBack { undone.withLock { $0.append("committed write") } }
                _ = try? await repositories.isolated {
                    repositories.ifRolledBack { undone.withLock { $0.append("failed part") } }
                    throw Refusal()
                }
            }
        }
        #expect(undone.withLock { $0 } == ["failed write", "failed part"])
    }
}
