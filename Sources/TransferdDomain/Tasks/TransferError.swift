/// Why a task completed without success, after NSURLError's codes; shown as the task's `error`.
package struct TransferError: Codable, Sendable, Equatable, Error {
    /// Stable machine-readable reasons.
    package enum Code: String, Codable, Sendable {
        case cancelled
        case timedOut
        case cannotConnectToHost
        case cannotFindHost
        case networkConnectionLost
        case badServerResponse
        case httpTooManyRedirects
        case unsupportedURL
        case cannotWriteToFile
        /// The file an upload sends is gone.
        case fileDoesNotExist
        /// The URL, or a redirect, leads to an address the service does not connect to (SSRF protection).
        case destinationNotAllowed
        /// The download is larger than its `maxBytes` (or the service's limit), whatever its Content-Length said.
        case fileTooLarge
        /// The data directory reached its free-space floor; the transfer waits for space.
        case outOfSpace
        /// The tenant keeps as many bytes as its quota of stored bytes allows; the transfer waits until it keeps fewer.
        case quotaExceeded
        /// The transfer's background task reached its deadline before the transfer completed.
        case backgroundTaskExpired
        /// The finished download's digest differs from the checksum the client gave.
        case checksumMismatch
        /// A gzip-encoded body that `decodeContent` asked to decode was not valid gzip.
        case cannotDecodeContentData
        /// The credentials the transfer needed were not given in time (a challenge left unanswered).
        case userAuthenticationRequired
        /// The TLS handshake failed: the server's certificate is not trusted, or they agreed on nothing.
        case secureConnectionFailed
        /// A tenant's object store failed or could not be reached, after the attempts its client makes.
        case objectStorageUnavailable
        /// A tenant's object store refused the request (a wrong key, a missing bucket, no right), or the task names
        /// a store the tenant does not have.
        case objectStorageRefused
        case unknown
    }

    package var code: Code
    package var message: String
    /// The origin's HTTP status, for `badServerResponse`.
    package var statusCode: Int?
    /// A token from which a new task continues the download (NSURLSessionDownloadTaskResumeData), when the bytes
    /// received so far can be kept.
    package var resumeData: String?
    /// How long the origin asked to wait (`Retry-After`), for the retry that follows; not shown.
    package var retryAfter: Duration?

    package enum CodingKeys: String, CodingKey {
        case code, message, statusCode, resumeData
    }

    /// Statuses that say "try again later" rather than "this will never work".
    package static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Whether the origin could not be reached at all (rather than answering badly).
    package var isConnectivityFailure: Bool {
        code == .cannotConnectToHost
    }

    /// Whether another attempt may succeed: network failures, stalls, truncated bodies and the statuses above.
    package var isTransient: Bool {
        switch code {
        case .cannotConnectToHost, .networkConnectionLost, .timedOut, .outOfSpace, .quotaExceeded, .objectStorageUnavailable: true
        case .badServerResponse: statusCode.map(Self.transientStatuses.contains) ?? false
        default: false
        }
    }

    package init(code: Code, message: String, statusCode: Int? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.retryAfter = retryAfter
    }

    package static let cancelled = TransferError(code: .cancelled, message: "The task was cancelled.")

    package static func tooLarge(limit: Int64) -> TransferError {
        TransferError(code: .fileTooLarge, message: "The download is larger than its limit of \(limit) bytes (maxBytes).")
    }

    package static let backgroundTaskExpired = TransferError(
        code: .backgroundTaskExpired,
        message: "The task's background task reached its deadline before the transfer completed."
    )

    package static let outlivedResource = TransferError(code: .timedOut, message: "The task outlived timeoutIntervalForResource.")

    package static func badServerResponse(status: Int, retryAfter: Duration? = nil) -> TransferError {
        TransferError(
            code: .badServerResponse,
            message: "The server answered with HTTP status \(status).",
            statusCode: status,
            retryAfter: retryAfter
        )
    }
}
