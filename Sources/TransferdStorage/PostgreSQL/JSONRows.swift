import Foundation
import GRDB
import TransferdJSON

/// Rows as one JSON parameter, an array of objects keyed by column: PostgreSQL's `jsonb_populate_record` reads each
/// back as a row of the table's own type, so that one statement writes many rows with each column typed by the table:
/// no casts, no limit of 65,535 parameters, and one statement text whatever the number of rows.
enum JSONRows {
    /// The `FROM` item of the rows of `table` in the parameter `?`, each as `v` (its columns) and `j` (its object,
    /// keys of no column included). They come through `few_rows` (migration 17), which the planner takes for one
    /// row, so that a join with the table seeks each by its key whatever the table's statistics.
    static func source(of table: String) -> String {
        "few_rows(CAST(? AS jsonb)) AS j CROSS JOIN LATERAL jsonb_populate_record(NULL::\(table), j) AS v"
    }

    /// The rows' JSON; a blob goes as bytea's hex text. A value JSON cannot hold (an infinite or NaN double) is
    /// `StoreError.corruptValue`.
    static func text(_ rows: [StoredColumns]) throws -> String {
        var output = JSONOutput(capacity: 512 * rows.count)
        output.append("[")
        for (index, row) in rows.enumerated() {
            if index > 0 { output.append(",") }
            output.append("{")
            for (position, column) in row.enumerated() {
                if position > 0 { output.append(",") }
                output.string(column.key)
                output.append(":")
                try append(column.value?.databaseValue ?? .null, to: &output)
            }
            output.append("}")
        }
        output.append("]")
        return String(decoding: output.bytes, as: UTF8.self)
    }

    private static func append(_ value: DatabaseValue, to output: inout JSONOutput) throws {
        switch value.storage {
        case .null: output.append("null")
        case .int64(let number): output.integer(number)
        case .double(let number):
            guard number.isFinite else { throw StoreError.corruptValue("\(number) cannot be written as JSON") }
            try output.number(number, codingPath: [])
        case .string(let string): output.string(string)
        case .blob(let bytes):
            let digits: StaticString = "0123456789abcdef"
            output.append("\"\\\\x")
            digits.withUTF8Buffer { hex in
                for byte in bytes {
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0x0F)])
                }
            }
            output.append("\"")
        }
    }
}
