import HTTPTypes

/// Rules for headers a client asks transferd to send: valid HTTP field syntax, and none that transferd owns.
package enum HeaderValidation {
    /// Framing and connection headers are computed per request by transferd; a client may not set them.
    package static let reservedNames: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "range",
        "if-range", "expect", "proxy-connection",
    ]

    package static func validate(_ headers: [String: String], field: String) throws(DomainError) {
        guard headers.count <= 100 else {
            throw .invalidField(field, requirement: "must have at most 100 headers")
        }
        for (name, value) in headers {
            guard HTTPField.Name(name) != nil else {
                throw .invalidField("\(field).\(name)", requirement: "is not a valid HTTP header name")
            }
            guard !reservedNames.contains(name.lowercased()) else {
                throw .invalidField("\(field).\(name)", requirement: "is set by transferd itself and cannot be given")
            }
            guard HTTPField.isValidValue(value), value.utf8.count <= 8192 else {
                throw .invalidField("\(field).\(name)", requirement: "must be a valid HTTP header value of at most 8192 bytes")
            }
        }
    }
}
