/// Encodes `Encodable` values straight into JSON's UTF-8 bytes, in one pass, as the values encode themselves.
///
/// Foundation's `JSONEncoder` first builds a tree of every value and then writes it; for the API's answers that
/// tree was the largest single cost of a request. The conventions are the API's: dates as ISO 8601 in UTC with
/// milliseconds (or, for the database's JSON columns, as GRDB writes them: milliseconds since 1970), slashes unescaped, an object's members in the order its type encodes them (a synthesized
/// `Encodable` follows its declaration), and the members of a `[String: …]` dictionary sorted by key, so the same
/// value always gives the same bytes. `nil` members given to `encodeIfPresent` are left out; non-finite numbers are
/// an error. Types that encode through `superEncoder()` are not supported.
package struct StreamingJSONEncoder: Sendable {
    package enum DateFormat: Sendable {
        /// `"2026-11-23T17:16:21.299Z"`
        case iso8601
        /// `1795454181299`, a number (with a fraction below the millisecond if the date has one).
        case millisecondsSince1970
    }

    package var dateFormat: DateFormat

    package init(dateFormat: DateFormat = .iso8601) {
        self.dateFormat = dateFormat
    }

    package func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = ByteEncoder(capacity: 1024, dateFormat: dateFormat)
        try encoder.encodeValue(value)
        return encoder.output.bytes
    }
}
