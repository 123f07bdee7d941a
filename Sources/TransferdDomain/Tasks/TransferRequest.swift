/// What a task asks of the origin: its `originalRequest` (and, with the final URL, its `currentRequest`).
package struct TransferRequest: Codable, Sendable, Equatable {
    package var url: String
    package var method: String
    /// Headers the client gave for this task; credentials stay stored but only names are shown.
    package var headers: [String: String]

    package init(
        url: String,
        method: String,
        headers: [String: String]
    ) {
        self.url = url
        self.method = method
        self.headers = headers
    }
}
