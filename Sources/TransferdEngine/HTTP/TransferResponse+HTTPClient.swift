import AsyncHTTPClient
import Foundation
import NIOHTTP1
import TransferdDomain

extension TransferResponse {
    /// The response head as a task shows it: header names lowercased (repeated ones joined), the bare MIME type.
    package init(_ response: HTTPClientResponse) {
        let mimeType = response.headers.first(name: "content-type")
        self.init(
            statusCode: Int(response.status.code),
            headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { "\($0), \($1)" },
            mimeType: mimeType.map { String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces) }
        )
    }
}
