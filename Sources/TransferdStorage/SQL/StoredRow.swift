import GRDB

/// One row of a query's result, read by column position or by name, its values converted as GRDB converts them
/// (dates from their stored text, booleans from integers). A row of SQLite is GRDB's own, read in place; a row of
/// another database is a list of values with its result's column names.
package struct StoredRow {
    private enum Source {
        case grdb(Row)
        case values([DatabaseValue], ColumnNames)
    }

    private let source: Source

    init(_ row: Row) {
        source = .grdb(row)
    }

    init(values: [DatabaseValue], columns: ColumnNames) {
        source = .values(values, columns)
    }

    /// The value at `index` (an optional type reads NULL as nil); a NULL for a type that is not optional, or a
    /// value of another type, is a schema error, and stops the process as GRDB does.
    package subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        switch source {
        case .grdb(let row): row[index]
        case .values(let values, _): Self.converted(values[index], "column \(index)")
        }
    }

    /// The value at `index`, read from SQLite's statement without a `DatabaseValue` in between.
    package subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        switch source {
        case .grdb(let row): row[index]
        case .values(let values, _): Self.converted(values[index], "column \(index)")
        }
    }

    /// The value of the first column named `column`.
    package subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value {
        switch source {
        case .grdb(let row): row[column]
        case .values(let values, let columns): Self.converted(values[columns.index(column)], column)
        }
    }

    package subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: String) -> Value {
        switch source {
        case .grdb(let row): row[column]
        case .values(let values, let columns): Self.converted(values[columns.index(column)], column)
        }
    }

    /// The row cut at each of `markers` (columns named so, themselves left out, in order), as rows of their own whose
    /// columns count from their first: the tables of a join read apart, each by its own names and positions.
    package func parts(after markers: [String]) -> [StoredRow] {
        let (values, names): ([DatabaseValue], [String]) =
            switch source {
            case .grdb(let row): (Array(row.databaseValues), Array(row.columnNames))
            case .values(let values, let columns): (values, columns.names)
            }
        var starts = [0]
        var ends: [Int] = []
        for marker in markers {
            guard let index = names[starts.last!...].firstIndex(of: marker) else { fatalError("the result has no column `\(marker)`") }
            ends.append(index)
            starts.append(index + 1)
        }
        ends.append(names.count)
        return zip(starts, ends).map { StoredRow(values: Array(values[$0..<$1]), columns: ColumnNames(Array(names[$0..<$1]))) }
    }

    private static func converted<Value: DatabaseValueConvertible>(_ value: DatabaseValue, _ column: @autoclosure () -> String) -> Value {
        guard let converted = Value.fromDatabaseValue(value) else {
            fatalError("\(column()) holds \(value), which is not a \(Value.self)")
        }
        return converted
    }
}

/// The column names of one result, by position, found by name through one dictionary for all of its rows.
final class ColumnNames: Sendable {
    let names: [String]
    private let positions: [String: Int]

    init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil { positions[name] = index }
        self.positions = positions
    }

    func index(_ column: String) -> Int {
        guard let index = positions[column] else { fatalError("the result has no column `\(column)`") }
        return index
    }
}
