/// The origin's final response head, as the task's `response` field shows it.
public struct TransferResponse: Codable, Sendable, Equatable {
    public var statusCode: Int
    public var headers: [String: String]
    public var mimeType: String?
}
