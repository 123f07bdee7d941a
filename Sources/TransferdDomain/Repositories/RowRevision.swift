/// A row by its id, with its revision as read where the store keeps one (PostgreSQL's `xmin`, which every write of
/// the row changes; nil on SQLite, whose writes take turns of its one writer): a write guarded by it writes only
/// while the row is still as read.
package struct RowRevision: Sendable, Hashable {
    package let id: Int64
    package let revision: String?

    package init(id: Int64, revision: String?) {
        self.id = id
        self.revision = revision
    }
}
