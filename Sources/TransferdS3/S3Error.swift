/// A store's refusal: its HTTP status and the `Code` and `Message` of its XML error (`NoSuchBucket`,
/// `SignatureDoesNotMatch`, `SlowDown`…), or what the status alone says when the body had none (a `HEAD`).
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String

    public init(status: Int, code: String, message: String) {
        (self.status, self.code, self.message) = (status, code, message)
    }

    /// A failure the same request may not meet again: the store's 5xx, its throttling, a request that timed out.
    public var isTransient: Bool {
        status >= 500 || status == 429 || ["SlowDown", "RequestTimeout", "RequestTimeTooSkewed", "InternalError"].contains(code)
    }

    /// A refusal of who is asking: a wrong key or secret, or a key without the right.
    public var isAuthentication: Bool {
        ["SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied", "InvalidToken", "ExpiredToken"].contains(code)
            || status == 401 || status == 403
    }

    public var description: String { "\(code) (HTTP \(status)): \(message)" }
}
