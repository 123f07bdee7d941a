import Hummingbird
import NIOPosix
import TransferdDomain
import TransferdEngine
import TransferdServices

/// Serves bytes stored on disk as a representation: whole, or one range of it, with `ETag` (the SHA-256, when
/// known) and `If-Range`. Bodies stream from the file.
package struct ContentResponder: Sendable {
    /// What is served: where it is on disk and what it is.
    package struct Content {
        package var path: String
        package var size: Int64
        package var sha256: String? = nil
        package var contentType: String?
    }

    package let fileIO = FileIO(threadPool: .singleton)

    package func respond(_ content: Content, to request: Request, context: AppRequestContext, includeBody: Bool) async throws -> Response {
        let etag = content.sha256.map { "\"\($0)\"" }
        var headers: HTTPFields = [.contentType: content.contentType ?? "application/octet-stream", .acceptRanges: "bytes"]
        headers[.eTag] = etag
        // A range applies only while the client's validator (If-Range) still matches the content.
        let rangeHeader = request.headers[.ifRange].map { $0 == etag } ?? true ? request.headers[.range] : nil
        switch ByteRange(header: rangeHeader, size: content.size) {
        case .unsatisfiable:
            throw Problem.rangeNotSatisfiable(size: content.size)
        case .whole:
            headers[.contentLength] = String(content.size)
            let body =
                includeBody && content.size > 0 ? try await fileIO.loadFile(path: content.path, context: context) : ResponseBody()
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentLength] = String(range.count)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(content.size)"
            let body =
                includeBody
                ? try await fileIO.loadFile(path: content.path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
                : ResponseBody()
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }
}
