import Foundation
import GRDB
import TransferdDomain
import TransferdJSON

/// What hand-coded rows share: enumerations stored by their raw values, and JSON columns in the format of GRDB's own
/// JSON coders (`databaseJSONEncoder`), so that rows written by hand and rows written through `Codable` read back
/// alike.
enum RowCoding {
    static func enumeration<T: RawRepresentable>(_ row: Row, _ column: String) throws -> T where T.RawValue == String {
        try enumeration(row[column] as String, column)
    }

    static func enumeration<T: RawRepresentable>(_ value: String, _ column: @autoclosure () -> String) throws -> T
    where T.RawValue == String {
        guard let decoded = T(rawValue: value) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "column \(column()) holds `\(value)`, which is not a \(T.self)")
        }
        return decoded
    }

    static func json<T: Decodable>(_ row: Row, _ column: String) throws -> T? {
        guard let text = row[column] as String? else { return nil }
        return try decode(T.self, json: text)
    }

    static func decode<T: Decodable>(_ type: T.Type, json text: String) throws -> T {
        try jsonDecoder.decode(type, from: Data(text.utf8))
    }

    static func json<T: Encodable>(_ value: T?) throws -> String? {
        guard let value else { return nil }
        return String(decoding: try jsonEncoder.encode(value), as: UTF8.self)
    }

    // GRDB's default JSON decoder (every record here keeps the defaults, for every column), made once rather than
    // once per column per row; texts are written in the format it reads (dates in milliseconds since 1970) by the
    // streaming encoder, which a task's or event's insert on the one writer otherwise spent a tenth of its time in.
    private static let jsonDecoder = TransferTask.databaseJSONDecoder(for: "")
    private static let jsonEncoder = StreamingJSONEncoder(dateFormat: .millisecondsSince1970)
}
