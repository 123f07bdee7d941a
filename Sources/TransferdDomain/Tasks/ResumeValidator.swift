import Foundation

/// What identifies the representation a partial download came from, sent back as `If-Range` so that a changed
/// resource is sent whole instead of being spliced onto stale bytes.
package struct ResumeValidator: Codable, Sendable, Equatable {
    /// A strong `ETag` (weak ones cannot be used with `If-Range`).
    package var etag: String?
    package var lastModified: String?

    /// The `If-Range` value: the strong ETag, else the Last-Modified date.
    package var ifRange: String {
        etag ?? lastModified ?? ""
    }

    /// Why a response's bytes cannot be continued with a range request.
    package enum NotResumableReason: String, Codable, Sendable, Error {
        /// No response has arrived yet, so nothing is known.
        case noResponseYet
        /// The response has neither a strong `ETag` nor `Last-Modified`.
        case noValidator
        /// The response does not say `Accept-Ranges: bytes`.
        case noAcceptRanges
        /// The body is decoded on the way to disk (`decodeContent`), so stored bytes do not map to ranges.
        case contentDecoded
        /// The content is the body of a redirect that was not followed.
        case redirectNotFollowed
    }

    /// The validator of a response whose bytes can be continued, or why they cannot.
    package static func of(headers: [String: String], statusCode: Int, decoded: Bool) -> Result<ResumeValidator, NotResumableReason> {
        if decoded { return .failure(.contentDecoded) }
        if (300..<400).contains(statusCode) { return .failure(.redirectNotFollowed) }
        let acceptsRanges =
            statusCode == 206
            || headers["accept-ranges"]?.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "bytes" }
                == true
        guard acceptsRanges else { return .failure(.noAcceptRanges) }
        // An empty or weak ETag, or an empty date, validates nothing: it would go out as an empty `If-Range`.
        func given(_ name: String) -> String? { headers[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        let etag = given("etag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        let validator = ResumeValidator(etag: etag, lastModified: given("last-modified"))
        guard validator.etag != nil || validator.lastModified != nil else { return .failure(.noValidator) }
        return .success(validator)
    }

    package init(
        etag: String? = nil,
        lastModified: String? = nil
    ) {
        self.etag = etag
        self.lastModified = lastModified
    }
}
