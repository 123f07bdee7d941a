import Hummingbird
import TransferdJSON

extension StreamingJSONEncoder: ResponseEncoder {
    /// A `200` with the value as `application/json`, as Hummingbird's own `JSONEncoder` conformance answers.
    package func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        let bytes = try encode(value)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(bytes.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
