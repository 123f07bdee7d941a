/// The origin's final response head, as the task's `response` field shows it.
package struct TransferResponse: Codable, Sendable, Equatable {
    package var statusCode: Int
    package var headers: [String: String]
    package var mimeType: String?

    package init(
        statusCode: Int,
        headers: [String: String],
        mimeType: String? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.mimeType = mimeType
    }
}
