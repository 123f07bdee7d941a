/// Where a reader of all of a tenant's sessions' events is: after the event `id`, written by the transaction
/// `transaction`. Events are read in `(transaction, id)` order, and only from transactions that have ended (on
/// PostgreSQL, where concurrent instances' transactions commit out of id order; on SQLite, where one writer commits
/// in id order, `transaction` is 0). Shown to clients as the opaque text `<transaction>.<id>`.
package struct TenantEventCursor: Sendable, Equatable, Comparable, CustomStringConvertible {
    package var transaction: Int64
    package var id: Int64

    package static let start = TenantEventCursor(transaction: 0, id: 0)

    package init(transaction: Int64, id: Int64) {
        self.transaction = transaction
        self.id = id
    }

    /// The cursor a client sent back (`Last-Event-ID`); nil when it is not one.
    package init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let transaction = Int64(parts[0]), let id = Int64(parts[1]), transaction >= 0, id >= 0 else { return nil }
        self.init(transaction: transaction, id: id)
    }

    package var description: String { "\(transaction).\(id)" }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.transaction, lhs.id) < (rhs.transaction, rhs.id)
    }
}
