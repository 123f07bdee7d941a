import Foundation
import HTTPTypes
import Hummingbird

/// A response whose body is in memory: what creating routes answer, so that it can be kept and replayed to a retry
/// with the same `Idempotency-Key`.
struct BufferedResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` as JSON.
    init(status: HTTPResponse.Status, json value: some Encodable, context: AppRequestContext, headers: HTTPFields = [:]) throws {
        self.status = status
        self.headers = headers
        self.headers[.contentType] = "application/json"
        body = ByteBuffer(bytes: try context.responseEncoder.encode(value))
    }

    var response: Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
