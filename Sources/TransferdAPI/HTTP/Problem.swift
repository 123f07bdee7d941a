import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdJSON

/// An RFC 9457 problem: every error the API returns is one, rendered as `application/problem+json`.
package struct Problem: Error, HTTPResponseError, Equatable {
    /// Which problem of the catalogue it is: its slug and title.
    package let kind: ProblemKind
    /// HTTP status of the response: the kind's, unless the kind leaves it to the case (a quota's refusal).
    package let status: HTTPResponse.Status
    /// Exactly what was wrong with this request.
    package let detail: String
    /// Headers the response needs besides the body (`Content-Range` on a 416, for instance).
    package var headers: HTTPFields
    /// The quota a refusal names, with its figures, as members of the body.
    package var breach: QuotaBreach?
    /// Where a trimmed event log now begins, as a member of the body.
    package var trimmed: TrimmedHistory?

    package init(_ kind: ProblemKind, status: HTTPResponse.Status? = nil, detail: String, headers: HTTPFields = [:]) {
        self.kind = kind
        self.status = status ?? kind.status
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
        package var earliestSequence: Int64?
        package var earliestAfter: String?
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            type: "urn:transferd:problem:\(kind.slug)",
            title: kind.title,
            status: status.code,
            detail: detail,
            quota: breach?.quota.rawValue,
            limit: breach?.limit,
            used: breach?.used,
            requested: breach?.requested,
            earliestSequence: trimmed.flatMap { if case .session(let earliest) = $0 { earliest } else { nil } },
            earliestAfter: trimmed.flatMap { if case .tenant(let through) = $0 { through.description } else { nil } }
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
        switch error {
        case .invalidField: self.init(.invalidField, detail: error.detail)
        case .badRequest: self.init(.badRequest, detail: error.detail)
        case .notFound: self.init(.notFound, detail: error.detail)
        case .conflict: self.init(.conflict, detail: error.detail)
        case .limitExceeded: self.init(.limitExceeded, detail: error.detail)
        case .tooLarge: self.init(.contentTooLarge, detail: error.detail)
        case .checksumMismatch: self.init(.checksumMismatch, detail: error.detail)
        case .destinationNotAllowed: self.init(.destinationNotAllowed, detail: error.detail)
        case .unprocessable: self.init(.unprocessableContent, detail: error.detail)
        case .insufficientStorage: self.init(.insufficientStorage, detail: error.detail)
        case .objectStorageUnavailable:
            self.init(.objectStorageUnavailable, detail: error.detail)
            headers[.retryAfter] = "5"
        case .quotaExceeded(let breach):
            let status = breach.quota == .storedBytes ? ProblemKind.insufficientStorage.status : ProblemKind.quotaExceeded.status
            self.init(.quotaExceeded, status: status, detail: error.detail)
            self.breach = breach
        case .historyTrimmed(let trimmed):
            self.init(.historyTrimmed, detail: error.detail)
            self.trimmed = trimmed
        }
    }

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
        Problem(.unsupportedMediaType, detail: detail)
    }

    package static func rangeNotSatisfiable(size: Int64) -> Problem {
        Problem(
            .rangeNotSatisfiable,
            detail: "The requested range lies outside the \(size) bytes of content.",
            headers: [.contentRange: "bytes */\(size)"]
        )
    }

    /// The database cannot be reached for a moment (PostgreSQL restarting, a failover): nothing was done, and the
    /// same request may be sent again shortly. The real error goes to the log.
    package static let databaseUnavailable = Problem(
        .databaseUnavailable,
        detail: "The database cannot be reached for the moment; nothing was changed. Send the request again shortly.",
        headers: [.retryAfter: "1"]
    )

    /// The database's disk is full: the transaction was rolled back, and nothing acknowledged before is lost. The
    /// same request may succeed once the operator frees space.
    package static let databaseFull = Problem(
        .databaseFull,
        detail: "The database's disk is full; nothing was changed. Send the request again once space is freed.",
        headers: [.retryAfter: "30"]
    )

    /// The bucket that holds the content cannot be reached for a moment; the request may be sent again shortly. The
    /// store's answer goes to the log.
    package static let objectStorageUnavailable = Problem(.objectStorageUnreachable)

    /// Anything the server did not expect; the real error goes to the log, never to the client.
    package static let internalError = Problem(
        .internalError,
        detail: "The server failed to handle the request; the failure was logged."
    )
}
