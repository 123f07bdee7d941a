/// Encodes `Encodable` values straight into JSON's UTF-8 bytes, in one pass, as the values encode themselves.
///
/// Foundation's `JSONEncoder` first builds a tree of every value and then writes it; for the API's answers that
/// tree was the largest single cost of a request. The conventions are the API's: dates as ISO 8601 in UTC with
/// milliseconds, slashes unescaped, an object's members in the order its type encodes them (a synthesized
/// `Encodable` follows its declaration), and the members of a `[String: …]` dictionary sorted by key, so the same
/// value always gives the same bytes. `nil` members given to `encodeIfPresent` are left out; non-finite numbers are
/// an error. Types that encode through `superEncoder()` are not supported.
package struct StreamingJSONEncoder: Sendable {
    package init() {}

    package func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = ByteEncoder(capacity: 1024)
        try encoder.encodeValue(value)
        return encoder.output.bytes
    }
}
