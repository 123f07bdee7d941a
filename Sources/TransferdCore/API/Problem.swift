import Foundation
import HTTPTypes
import Hummingbird

/// An RFC 9457 problem: every error the API returns is one, rendered as `application/problem+json`.
public struct Problem: Error, HTTPResponseError, Equatable {
    /// HTTP status of the response.
    public let status: HTTPResponse.Status
    /// Stable machine-readable kind, the last part of the `type` URI (`urn:transferd:problem:<slug>`).
    public let slug: String
    /// Short human-readable summary of the kind.
    public let title: String
    /// Exactly what was wrong with this request.
    public let detail: String
    /// Headers the response needs besides the body (`Content-Range` on a 416, for instance).
    public var headers: HTTPFields

    public init(status: HTTPResponse.Status, slug: String, title: String, detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.headers = headers
    }

    /// The JSON body, as RFC 9457 names its members.
    struct Body: Codable {
        var type: String
        var title: String
        var status: Int
        var detail: String
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(type: "urn:transferd:problem:\(slug)", title: title, status: status.code, detail: detail)
        let data = try JSONEncoder().encode(body)
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
    static func badRequest(_ detail: String) -> Problem {
        Problem(status: .badRequest, slug: "bad-request", title: "Bad request", detail: detail)
    }

    /// A field of the request that is present but not acceptable.
    static func invalidField(_ field: String, _ requirement: String) -> Problem {
        Problem(status: .badRequest, slug: "invalid-field", title: "Invalid field", detail: "`\(field)` \(requirement).")
    }

    static func notFound(_ detail: String) -> Problem {
        Problem(status: .notFound, slug: "not-found", title: "Not found", detail: detail)
    }

    /// The request is well formed but the resource's current state forbids it.
    static func conflict(_ detail: String) -> Problem {
        Problem(status: .conflict, slug: "conflict", title: "Conflict with the resource's state", detail: detail)
    }

    static func contentTooLarge(limit: Int) -> Problem {
        Problem(
            status: .contentTooLarge,
            slug: "content-too-large",
            title: "Content too large",
            detail: "The request body is larger than the \(limit) bytes this endpoint accepts."
        )
    }

    static func unsupportedMediaType(_ detail: String) -> Problem {
        Problem(status: .unsupportedMediaType, slug: "unsupported-media-type", title: "Unsupported media type", detail: detail)
    }

    static func rangeNotSatisfiable(size: Int64) -> Problem {
        Problem(
            status: .rangeNotSatisfiable,
            slug: "range-not-satisfiable",
            title: "Range not satisfiable",
            detail: "The requested range lies outside the \(size) bytes of content.",
            headers: [.contentRange: "bytes */\(size)"]
        )
    }

    /// Anything the server did not expect; the real error goes to the log, never to the client.
    static let internalError = Problem(
        status: .internalServerError,
        slug: "internal-error",
        title: "Internal error",
        detail: "The server failed to handle the request; the failure was logged."
    )
}
