import Foundation
import GRDB
import TransferdDomain
import TransferdJSON

/// What the rows share: enumerations stored by their raw values, and JSON columns in the format of GRDB's own JSON
/// coders (`databaseJSONEncoder`), in which the rows of earlier versions were written.
enum RowCoding {
    static func enumeration<T: RawRepresentable>(_ row: StoredRow, _ column: String) throws -> T where T.RawValue == String {
        try enumeration(row[column] as String, column)
    }

    static func enumeration<T: RawRepresentable>(_ value: String, _ column: @autoclosure () -> String) throws -> T
    where T.RawValue == String {
        guard let decoded = T(rawValue: value) else {
            throw StoreError.corruptValue("column \(column()) holds `\(value)`, which is not a \(T.self)")
        }
        return decoded
    }

    static func json<T: Decodable>(_ row: StoredRow, _ column: String) throws -> T? {
        guard let text = row[column] as String? else { return nil }
        return try decode(T.self, json: text)
    }

    static func decode<T: Decodable>(_ type: T.Type, json text: String) throws -> T {
        try jsonDecoder.decode(type, from: Data(text.utf8))
    }

    /// An event's payload: its `data` column read as the arguments of its `type`.
    static func payload(_ row: StoredRow, type: EventType) throws -> EventPayload {
        try EventPayload(type: type, json: Data(((row["data"] as String?) ?? "{}").utf8), decoder: jsonDecoder)
    }

    static func json<T: Encodable>(_ value: T?) throws -> String? {
        guard let value else { return nil }
        return String(decoding: try jsonEncoder.encode(value), as: UTF8.self)
    }

    // The JSON columns' format: GRDB's own (`databaseJSONDecoder`: dates in milliseconds since 1970, data in
    // base64), in which rows written before these coders were written. One decoder for every column and row; texts
    // are written by the streaming encoder, which a task's or event's insert on the one writer otherwise spent a
    // tenth of its time in.
    private static let jsonDecoder = {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }()
    private static let jsonEncoder = StreamingJSONEncoder(dateFormat: .millisecondsSince1970)
}
