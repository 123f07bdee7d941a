/// An access key of an S3-compatible store. The secret never appears in a description, a log line or an error.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public let accessKeyId: String
    public let secretAccessKey: String

    public init(accessKeyId: String, secretAccessKey: String) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "S3Credentials(\(accessKeyId), secret redacted)" }
}
