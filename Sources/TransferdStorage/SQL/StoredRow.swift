import GRDB
import GRDBSQLite

/// One row of a query's result, read by column position or by name, its values converted as GRDB converts them
/// (dates from their stored text, booleans from integers). A row of SQLite is read in place, from SQLite's statement
/// or GRDB's row; a row of another database is a list of values with its result's column names.
package struct StoredRow {
    private enum Source {
        /// The current row of an SQLite statement being stepped.
        case statement(SQLiteStatement)
        /// A row of GRDB's, with its statement's column names (kept by the statement, which SQLite prepares once).
        case grdb(Row, names: [String])
        case values([DatabaseValue])
    }

    private let source: Source
    /// Where this row's first column is in `source`: past zero for a part of a join (``parts(_:)``).
    private let offset: Int
    /// This row's column names; nil for a whole row of GRDB's, which finds its columns by name itself.
    private let columns: ColumnNames?

    init(_ row: Row, names: [String]) {
        (source, offset, columns) = (.grdb(row, names: names), 0, nil)
    }

    init(statement: SQLiteStatement, columns: ColumnNames) {
        (source, offset, self.columns) = (.statement(statement), 0, columns)
    }

    init(values: [DatabaseValue], columns: ColumnNames) {
        (source, offset, self.columns) = (.values(values), 0, columns)
    }

    private init(_ source: Source, offset: Int, columns: ColumnNames) {
        (self.source, self.offset, self.columns) = (source, offset, columns)
    }

    /// The value at `index` (an optional type reads NULL as nil); a NULL for a type that is not optional, or a
    /// value of another type, is a schema error, and stops the process as GRDB does.
    package subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        switch source {
        case .statement(let statement):
            Self.converted(DatabaseValue(sqliteStatement: statement, index: CInt(offset + index)), "column \(index)")
        case .grdb(let row, _): row[offset + index]
        case .values(let values): Self.converted(values[offset + index], "column \(index)")
        }
    }

    /// The value at `index`, read from SQLite's statement without a `DatabaseValue` in between.
    package subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        switch source {
        case .statement(let statement):
            Value.fromStatement(statement, atUncheckedIndex: CInt(offset + index))
                ?? Self.converted(DatabaseValue(sqliteStatement: statement, index: CInt(offset + index)), "column \(index)")
        case .grdb(let row, _): row[offset + index]
        case .values(let values): Self.converted(values[offset + index], "column \(index)")
        }
    }

    /// The value of the first column named `column`.
    package subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value {
        switch (source, columns) {
        case (.grdb(let row, _), nil): row[column]
        case (_, let columns?): self[columns.index(column)] as Value
        case (.statement, nil), (.values, nil): fatalError("a row of a statement or of values has its column names")
        }
    }

    package subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: String) -> Value {
        switch (source, columns) {
        case (.grdb(let row, _), nil): row[column]
        case (_, let columns?): self[columns.index(column)] as Value
        case (.statement, nil), (.values, nil): fatalError("a row of a statement or of values has its column names")
        }
    }

    /// The row's column names, in order.
    var columnNames: [String] {
        if let columns { return columns.names }
        return switch source {
        case .grdb(_, let names): names
        case .statement, .values: fatalError("a row of a statement or of values has its column names")
        }
    }

    /// The row cut where `layout` says, as rows of their own whose columns count from their first: the tables of a
    /// join read apart, each by its own names and positions, without copying a value.
    package func parts(_ layout: JoinLayout) -> [StoredRow] {
        layout.cut(self).map { StoredRow(source, offset: offset + $0.start, columns: $0.columns) }
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

    /// The position of the first column named `column`; SQLite's names keep the case they were written in, so a
    /// name of another case is found too, as GRDB finds it.
    func index(_ column: String) -> Int {
        if let index = positions[column] { return index }
        let lowercased = column.lowercased()
        guard let index = names.firstIndex(where: { $0.lowercased() == lowercased }) else {
            fatalError("the result has no column `\(column)`")
        }
        return index
    }
}
