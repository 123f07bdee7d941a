/// What a task asks of the origin: its `originalRequest` (and, with the final URL, its `currentRequest`).
public struct TransferRequest: Codable, Sendable, Equatable {
    public var url: String
    public var method: String
    /// Headers the client gave for this task; credentials stay stored but only names are shown.
    public var headers: [String: String]
}
