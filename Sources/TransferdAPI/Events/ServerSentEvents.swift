import HTTPTypes
import Hummingbird
import NIOCore
import TransferdDomain
import TransferdJSON

/// The `text/event-stream` format (HTML's Server-Sent Events): what a stream's response says it is, and how its
/// messages and comments are written.
enum ServerSentEvents {
    static let contentType = "text/event-stream"

    /// Whether the request asks for a stream (`Accept: text/event-stream`).
    static func isRequested(by request: Request) -> Bool {
        request.headers[values: .accept].contains { $0.contains(contentType) }
    }

    /// The headers of a stream's response: never cached, nor buffered by a proxy (nginx's `X-Accel-Buffering`).
    static let headers: HTTPFields = [
        .contentType: "\(contentType); charset=utf-8",
        .cacheControl: "no-cache",
        HTTPField.Name("X-Accel-Buffering")!: "no",
    ]

    /// A reconnecting client's `Last-Event-ID`: the id of the last message it received.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    /// A comment that keeps an idle connection open through proxies; clients ignore it.
    static let heartbeat = ByteBuffer(string: ": heartbeat\n\n")

    /// Appends one message: its `id`, its `event` type and its `data` (one line of JSON).
    static func append(id: String, event: String, data: some Encodable, to buffer: inout ByteBuffer) throws {
        buffer.writeString("id: \(id)\nevent: \(event)\ndata: ")
        buffer.writeBytes(try JSONCoding.encoder.encode(data))
        buffer.writeString("\n\n")
    }
}
