import Synchronization

/// The one statement a lookup may send without a transaction; a second is refused, and the lookup runs again as
/// a read.
final class StatementBudget: Sendable {
    private let spent = Atomic(0)

    /// Whether a second statement was asked for.
    var isExceeded: Bool { spent.load(ordering: .acquiring) > 1 }

    func spend() throws {
        guard spent.add(1, ordering: .acquiringAndReleasing).newValue == 1 else { throw MoreThanOneStatement() }
    }

    struct MoreThanOneStatement: Error {}
}
