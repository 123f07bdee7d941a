import Foundation

/// tus's `Upload-Metadata`: comma-separated `key base64value` pairs (a key may stand alone).
package enum TusMetadata {
    /// The decoded pairs, or a 400 problem for a malformed header.
    package static func parse(_ header: String) throws(DomainError) -> [String: String] {
        var metadata: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard let key = parts.first, parts.count <= 2 else {
                throw .invalidField("Upload-Metadata", requirement: "must be comma-separated `key base64value` pairs")
            }
            let value = parts.count == 2 ? Data(base64Encoded: String(parts[1])).map { String(decoding: $0, as: UTF8.self) } : ""
            guard let value else { throw .invalidField("Upload-Metadata", requirement: "has a value for `\(key)` that is not base64") }
            metadata[String(key)] = value
        }
        return metadata
    }
}
