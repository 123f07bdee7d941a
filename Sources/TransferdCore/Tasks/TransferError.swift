/// Why a task completed without success, after NSURLError's codes; shown as the task's `error`.
public struct TransferError: Codable, Sendable, Equatable, Error {
    /// Stable machine-readable reasons.
    public enum Code: String, Codable, Sendable {
        case cancelled
        case timedOut
        case cannotConnectToHost
        case cannotFindHost
        case networkConnectionLost
        case badServerResponse
        case httpTooManyRedirects
        case unsupportedURL
        case cannotWriteToFile
        /// The finished download's digest differs from the checksum the client gave.
        case checksumMismatch
        /// A gzip-encoded body that `decodeContent` asked to decode was not valid gzip.
        case cannotDecodeContentData
        case unknown
    }

    public var code: Code
    public var message: String
    /// The origin's HTTP status, for `badServerResponse`.
    public var statusCode: Int?

    public init(code: Code, message: String, statusCode: Int? = nil) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
    }

    static let cancelled = TransferError(code: .cancelled, message: "The task was cancelled.")

    static func badServerResponse(status: Int) -> TransferError {
        TransferError(code: .badServerResponse, message: "The server answered with HTTP status \(status).", statusCode: status)
    }
}
