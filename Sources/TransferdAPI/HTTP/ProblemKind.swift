import HTTPTypes

/// Every kind of problem the API answers with, in one catalogue: its slug (the last part of the `type` URI,
/// `urn:transferd:problem:<slug>`), its status and its title. Clients match on the slug; it never changes once
/// shipped.
package enum ProblemKind: String, CaseIterable, Sendable {
    case badRequest = "bad-request"
    case invalidField = "invalid-field"
    case unauthorized
    case forbidden
    case csrf
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case requestTimeout = "request-timeout"
    case conflict
    case limitExceeded = "limit-exceeded"
    case lengthRequired = "length-required"
    case tusVersionUnsupported = "tus-version-unsupported"
    case expectationFailed = "expectation-failed"
    case contentTooLarge = "content-too-large"
    case unsupportedMediaType = "unsupported-media-type"
    case rangeNotSatisfiable = "range-not-satisfiable"
    case unprocessableContent = "unprocessable-content"
    case destinationNotAllowed = "destination-not-allowed"
    case idempotencyKeyReused = "idempotency-key-reused"
    case checksumMismatch = "checksum-mismatch"
    case rateLimited = "rate-limited"
    case tooManyStreams = "too-many-streams"
    /// 429 for a quota of counts or rates, 507 for stored bytes (the refusal says which).
    case quotaExceeded = "quota-exceeded"
    case internalError = "internal-error"
    case notReady = "not-ready"
    case databaseUnavailable = "database-unavailable"
    case databaseFull = "database-full"
    case insufficientStorage = "insufficient-storage"
    case objectStorageUnavailable = "object-storage-unavailable"
    case historyTrimmed = "history-trimmed"

    package var slug: String { rawValue }

    package var status: HTTPResponse.Status {
        switch self {
        case .badRequest, .invalidField: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden, .csrf: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .requestTimeout: .requestTimeout
        case .expectationFailed: .expectationFailed
        case .conflict, .limitExceeded: .conflict
        case .lengthRequired: .lengthRequired
        case .tusVersionUnsupported: .preconditionFailed
        case .contentTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .rangeNotSatisfiable: .rangeNotSatisfiable
        case .unprocessableContent, .destinationNotAllowed, .idempotencyKeyReused: .unprocessableContent
        case .checksumMismatch: HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch")
        case .rateLimited, .tooManyStreams, .quotaExceeded: .tooManyRequests
        case .internalError: .internalServerError
        case .notReady, .databaseUnavailable, .databaseFull, .objectStorageUnavailable: .serviceUnavailable
        case .insufficientStorage: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .historyTrimmed: .gone
        }
    }

    package var title: String {
        switch self {
        case .badRequest: "Bad request"
        case .invalidField: "Invalid field"
        case .unauthorized: "Unauthorized"
        case .forbidden, .csrf: "Forbidden"
        case .notFound: "Not found"
        case .methodNotAllowed: "Method not allowed"
        case .requestTimeout: "Request timeout"
        case .expectationFailed: "Expectation failed"
        case .conflict: "Conflict with the resource's state"
        case .limitExceeded: "Limit exceeded"
        case .lengthRequired: "Length required"
        case .tusVersionUnsupported: "tus version not supported"
        case .contentTooLarge: "Content too large"
        case .unsupportedMediaType: "Unsupported media type"
        case .rangeNotSatisfiable: "Range not satisfiable"
        case .unprocessableContent: "Unprocessable content"
        case .destinationNotAllowed: "Destination not allowed"
        case .idempotencyKeyReused: "Idempotency-Key reused"
        case .checksumMismatch: "Checksum mismatch"
        case .rateLimited: "Too many requests"
        case .tooManyStreams: "Too many streams"
        case .quotaExceeded: "Quota exceeded"
        case .internalError: "Internal error"
        case .notReady: "Not ready"
        case .databaseUnavailable: "Database unavailable"
        case .databaseFull: "Database full"
        case .objectStorageUnavailable: "Object storage unavailable"
        case .insufficientStorage: "Insufficient storage"
        case .historyTrimmed: "History trimmed"
        }
    }
}

extension ProblemKind {
    /// The kind of an error the HTTP framework raised with `status` (no route, a method a route does not take, a
    /// body it could not read): the catalogue's kind of that status, else a plain bad request or internal error.
    package init(_ status: HTTPResponse.Status) {
        switch status {
        case .notFound: self = .notFound
        case .methodNotAllowed: self = .methodNotAllowed
        case .contentTooLarge: self = .contentTooLarge
        case .unsupportedMediaType: self = .unsupportedMediaType
        case .rangeNotSatisfiable: self = .rangeNotSatisfiable
        case .requestTimeout: self = .requestTimeout
        case .expectationFailed: self = .expectationFailed
        default: self = status.kind == .clientError ? .badRequest : .internalError
        }
    }
}
