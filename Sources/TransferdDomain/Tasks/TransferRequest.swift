/// What a task asks of the origin: its `originalRequest` (and, with the final URL, its `currentRequest`).
package struct TransferRequest: Codable, Sendable, Equatable {
    package var url: String
    package var method: String
    /// Headers the client gave for this task; credentials stay stored but only names are shown.
    package var headers: [String: String]
    /// A download's other sources of the same content (`mirrors`), fetched beside `url`; nil when it has none.
    package var mirrors: [String]?

    package init(
        url: String,
        method: String,
        headers: [String: String],
        mirrors: [String]? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.mirrors = mirrors
    }

    /// Every URL the download may fetch from: `url` first, then its mirrors.
    package var sources: [String] { [url] + (mirrors ?? []) }
}
