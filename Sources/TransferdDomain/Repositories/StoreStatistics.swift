import Synchronization

/// What a shared store counts of its own work: the statements it sent (each a round trip to the database server),
/// by the kind of transaction they ran in, and the transactions it ran again after a conflict with another's.
package final class StoreStatistics: Sendable {
    package enum Transaction: String, Sendable, CaseIterable {
        case read, write, claim, renew
    }

    private let counts = Mutex<(statements: [Transaction: Int], retries: [Transaction: Int])>(([:], [:]))

    package init() {}

    package func sent(in transaction: Transaction) {
        counts.withLock { $0.statements[transaction, default: 0] += 1 }
    }

    package func ranAgain(_ transaction: Transaction) {
        counts.withLock { $0.retries[transaction, default: 0] += 1 }
    }

    /// The statements sent so far, by kind of transaction.
    package var statements: [Transaction: Int] { counts.withLock { $0.statements } }
    /// The transactions run again so far, by kind.
    package var retries: [Transaction: Int] { counts.withLock { $0.retries } }
}
