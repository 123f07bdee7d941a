import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdJSON

/// An RFC 9457 problem: every error the API returns is one, rendered as `application/problem+json`.
package struct Problem: Error, HTTPResponseError, Equatable {
    /// HTTP status of the response.
    package let status: HTTPResponse.Status
    /// Stable machine-readable kind, the last part of the `type` URI (`urn:transferd:problem:<slug>`).
    package let slug: String
    /// Short human-readable summary of the kind.
    package let title: String
    /// Exactly what was wrong with this request.
    package let detail: String
    /// Headers the response needs besides the body (`Content-Range` on a 416, for instance).
    package var headers: HTTPFields
    /// The quota a refusal names, with its figures, as members of the body.
    package var breach: QuotaBreach?

    package init(status: HTTPResponse.Status, slug: String, title: String, detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.headers = headers
    }

    /// The JSON body, as RFC 9457 names its members; a quota's refusal adds the quota's name and figures.
    package struct Body: Codable {
        package var type: String
        package var title: String
        package var status: Int
        package var detail: String
        package var quota: String?
        package var limit: Int64?
        package var used: Int64?
        package var requested: Int64?
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            type: "urn:transferd:problem:\(slug)",
            title: title,
            status: status.code,
            detail: detail,
            quota: breach?.quota.rawValue,
            limit: breach?.limit,
            used: breach?.used,
            requested: breach?.requested
        )
        let data = try JSONCoding.encoder.encode(body)
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(
            status: status,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

extension Problem {
    /// The problem a domain refusal is shown as: the one place where the domain's errors meet HTTP statuses.
    package init(_ error: DomainError) {
        let (status, slug, title): (HTTPResponse.Status, String, String) =
            switch error {
            case .invalidField: (.badRequest, "invalid-field", "Invalid field")
            case .badRequest: (.badRequest, "bad-request", "Bad request")
            case .notFound: (.notFound, "not-found", "Not found")
            case .conflict: (.conflict, "conflict", "Conflict with the resource's state")
            case .limitExceeded: (.conflict, "limit-exceeded", "Limit exceeded")
            case .tooLarge: (.contentTooLarge, "content-too-large", "Content too large")
            case .checksumMismatch:
                (HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch"), "checksum-mismatch", "Checksum mismatch")
            case .destinationNotAllowed: (.unprocessableContent, "destination-not-allowed", "Destination not allowed")
            case .unprocessable: (.unprocessableContent, "unprocessable-content", "Unprocessable content")
            case .insufficientStorage:
                (Self.insufficientStorage, "insufficient-storage", "Insufficient storage")
            case .quotaExceeded(let breach):
                (breach.quota == .storedBytes ? Self.insufficientStorage : .tooManyRequests, "quota-exceeded", "Quota exceeded")
            }
        self.init(status: status, slug: slug, title: title, detail: error.detail)
        if case .quotaExceeded(let breach) = error { self.breach = breach }
    }

    package static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

    package static func badRequest(_ detail: String) -> Problem {
        Problem(.badRequest(detail))
    }

    /// A field of the request that is present but not acceptable.
    package static func invalidField(_ field: String, _ requirement: String) -> Problem {
        Problem(.invalidField(field, requirement: requirement))
    }

    package static func notFound(_ detail: String) -> Problem {
        Problem(.notFound(detail))
    }

    /// The request is well formed but the resource's current state forbids it.
    package static func conflict(_ detail: String) -> Problem {
        Problem(.conflict(detail))
    }

    package static func contentTooLarge(limit: Int) -> Problem {
        Problem(.tooLarge("The request body is larger than the \(limit) bytes this endpoint accepts."))
    }

    package static func unsupportedMediaType(_ detail: String) -> Problem {
        Problem(status: .unsupportedMediaType, slug: "unsupported-media-type", title: "Unsupported media type", detail: detail)
    }

    package static func rangeNotSatisfiable(size: Int64) -> Problem {
        Problem(
            status: .rangeNotSatisfiable,
            slug: "range-not-satisfiable",
            title: "Range not satisfiable",
            detail: "The requested range lies outside the \(size) bytes of content.",
            headers: [.contentRange: "bytes */\(size)"]
        )
    }

    /// The database cannot be reached for a moment (PostgreSQL restarting, a failover): nothing was done, and the
    /// same request may be sent again shortly. The real error goes to the log.
    package static let databaseUnavailable = Problem(
        status: .serviceUnavailable,
        slug: "database-unavailable",
        title: "Database unavailable",
        detail: "The database cannot be reached for the moment; nothing was changed. Send the request again shortly.",
        headers: [.retryAfter: "1"]
    )

    /// The database's disk is full: the transaction was rolled back, and nothing acknowledged before is lost. The
    /// same request may succeed once the operator frees space.
    package static let databaseFull = Problem(
        status: .serviceUnavailable,
        slug: "database-full",
        title: "Database full",
        detail: "The database's disk is full; nothing was changed. Send the request again once space is freed.",
        headers: [.retryAfter: "30"]
    )

    /// Anything the server did not expect; the real error goes to the log, never to the client.
    package static let internalError = Problem(
        status: .internalServerError,
        slug: "internal-error",
        title: "Internal error",
        detail: "The server failed to handle the request; the failure was logged."
    )
}
