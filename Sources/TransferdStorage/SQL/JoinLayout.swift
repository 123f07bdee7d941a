import Synchronization

/// Where the tables of a join begin in its result: after each of its marker columns (`NULL AS task_columns`), in
/// order. The cut is found once for a result's column names and kept for the rows whose names are the same: a
/// statement's rows share its one array of names, so that check costs nothing, and a result of another column order
/// (another database, migrated from an older schema) is cut again. So a join's parts are read without copying a
/// value or building a dictionary of names a row.
package final class JoinLayout: Sendable {
    /// One part: where its columns begin, and their names.
    struct Part: Sendable {
        let start: Int
        let columns: ColumnNames
    }

    private struct Cut: Sendable {
        let names: [String]
        let parts: [Part]
    }

    private let markers: [String]
    private let known = Mutex<Cut?>(nil)

    /// The layout of results with these marker columns, in this order.
    package init(after markers: [String]) {
        self.markers = markers
    }

    /// The parts of `row`.
    func cut(_ row: StoredRow) -> [Part] {
        let names = row.columnNames
        if let cut = known.withLock({ $0 }), cut.names == names { return cut.parts }
        let cut = Cut(names: names, parts: found(in: names))
        known.withLock { $0 = cut }
        return cut.parts
    }

    private func found(in names: [String]) -> [Part] {
        var (starts, ends) = ([0], [Int]())
        for marker in markers {
            guard let index = names[starts.last!...].firstIndex(of: marker) else { fatalError("the result has no column `\(marker)`") }
            ends.append(index)
            starts.append(index + 1)
        }
        ends.append(names.count)
        return zip(starts, ends).map { Part(start: $0, columns: ColumnNames(Array(names[$0..<$1]))) }
    }
}
