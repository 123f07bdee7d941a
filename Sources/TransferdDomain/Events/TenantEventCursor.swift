/// Where a reader of all of a tenant's sessions' events is: after the event `id`, committed at position `commit`.
///
/// Events are read in `(commit, id)` order. On PostgreSQL, where instances' transactions commit out of id order,
/// every transaction that writes events takes the next commit position with its first append of events and holds
/// it until it commits, in turn with the others, so that positions become visible in order and a reader never waits
/// for transactions that wrote none; on SQLite, whose one writer commits in id order, `commit` is 0. Shown to clients as the opaque text
/// `c<commit>.<id>`.
package struct TenantEventCursor: Sendable, Equatable, Comparable, CustomStringConvertible {
    package var commit: Int64
    package var id: Int64
    /// A cursor an earlier version gave (`<transaction>.<id>`): on PostgreSQL `commit` holds the id of the
    /// transaction that wrote the event, which the store finds the commit position of.
    package var namesTransaction = false

    package static let start = TenantEventCursor(commit: 0, id: 0)

    package init(commit: Int64, id: Int64) {
        self.commit = commit
        self.id = id
    }

    /// The cursor a client sent back (`Last-Event-ID`); nil when it is not one.
    package init?(_ text: String) {
        let current = text.hasPrefix("c")
        let parts = text.dropFirst(current ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let commit = Int64(parts[0]), let id = Int64(parts[1]), commit >= 0, id >= 0 else { return nil }
        self.init(commit: commit, id: id)
        namesTransaction = !current
    }

    package var description: String { "c\(commit).\(id)" }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.commit, lhs.id) < (rhs.commit, rhs.id)
    }
}
