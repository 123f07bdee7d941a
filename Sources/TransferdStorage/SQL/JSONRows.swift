import Foundation
import GRDB

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
        var text = "["
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            text += "{"
            for (position, column) in row.enumerated() {
                if position > 0 { text += "," }
                append(string: column.key, to: &text)
                text += ":"
                try append(column.value?.databaseValue ?? .null, to: &text)
            }
            text += "}"
        }
        return text + "]"
    }

    private static func append(_ value: DatabaseValue, to text: inout String) throws {
        switch value.storage {
        case .null: text += "null"
        case .int64(let number): text += String(number)
        case .double(let number):
            guard number.isFinite else { throw StoreError.corruptValue("\(number) cannot be written as JSON") }
            text += "\(number)"
        case .string(let string): append(string: string, to: &text)
        case .blob(let bytes): append(string: "\\x" + bytes.map { String(format: "%02x", $0) }.joined(), to: &text)
        }
    }

    /// `string` as a JSON string: quoted, with quotes, backslashes and control characters escaped.
    private static func append(string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
