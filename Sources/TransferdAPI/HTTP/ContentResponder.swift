import HTTPTypes
import Hummingbird
import Logging
import NIOPosix
import TransferdDomain
import TransferdS3
import TransferdServices

/// Serves stored bytes as a representation: whole, or one range of it, with `ETag` (the SHA-256, when known) and
/// `If-Range`. Bodies stream from the file, or from the bucket (a ranged `GET` for a range).
///
/// Content is whatever an origin, a subscriber or a tenant wrote, served on the dashboard's origin: it is always an
/// attachment, never sniffed, and sandboxed without scripts, so that a page among it cannot run as transferd. Every
/// route that serves content answers through this responder, whole, in ranges or as a presigned URL, and it is what
/// declares content: it never opens for the dashboard's cookie (``Credential``), whatever the route's path.
package struct ContentResponder: Sendable {
    /// What is served: where it is and what it is.
    package struct Content {
        package var source: StoredBytes
        package var size: Int64
        package var sha256: String? = nil
        package var contentType: String?
        /// The name a browser saves it under (made safe here).
        package var filename: String
    }

    /// What every content response says so that no browser runs it: a download, of the type given, in a sandbox.
    static func isolationHeaders(filename: String) -> HTTPFields {
        [
            .contentDisposition: "attachment; filename=\"\(safeFilename(filename))\"",
            .contentTypeOptions: "nosniff",
            .contentSecurityPolicy: "sandbox; default-src 'none'",
        ]
    }

    /// `name` in the characters a quoted `filename` holds without escaping in any browser: letters, digits, `.`, `_`
    /// and `-`, at most 128 of them, not starting with a dot; `content` when nothing is left.
    static func safeFilename(_ name: String) -> String {
        let kept = String(
            name.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
            }.prefix(128)
        )
        let trimmed = String(kept.drop { $0 == "." })
        return trimmed.isEmpty ? "content" : trimmed
    }

    /// Where the bytes are: a file on disk, or an object, read only while its `ETag` is the one given (the one the
    /// download left).
    package let fileIO = FileIO(threadPool: .singleton)

    /// Refuses the dashboard's cookie: content opens with an API key or a signed link only.
    private static func admit(_ context: AppRequestContext) throws {
        guard context.credential != .dashboardCookie else {
            throw AuthenticationMiddleware.unauthorized(
                "Content needs `Authorization: Bearer <API key>` or a signed link from the dashboard; the dashboard's cookie does not open it.",
                error: nil
            )
        }
    }

    /// Hands content over as `url`, a presigned `GET` of its object, not passing its bytes through transferd.
    package func redirect(to url: String, context: AppRequestContext) throws -> Response {
        try Self.admit(context)
        return Response(status: .temporaryRedirect, headers: [.location: url, .cacheControl: "no-store"])
    }

    package func respond(_ content: Content, to request: Request, context: AppRequestContext, includeBody: Bool) async throws -> Response {
        try Self.admit(context)
        let etag = content.sha256.map { "\"\($0)\"" }
        var headers = Self.isolationHeaders(filename: content.filename)
        headers[.contentType] = content.contentType ?? "application/octet-stream"
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = etag
        // A range applies only while the client's validator (If-Range) still matches the content.
        let rangeHeader = request.headers[.ifRange].map { $0 == etag } ?? true ? request.headers[.range] : nil
        switch ByteRange(header: rangeHeader, size: content.size) {
        case .unsatisfiable:
            throw Problem.rangeNotSatisfiable(size: content.size)
        case .whole:
            headers[.contentLength] = String(content.size)
            let body = includeBody && content.size > 0 ? try await self.body(of: content.source, nil, context) : ResponseBody()
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentLength] = String(range.count)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(content.size)"
            let body = includeBody ? try await self.body(of: content.source, range, context) : ResponseBody()
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    /// The bytes of `source` (in `range`), streamed. An object that changed or went since the download stored it is
    /// not served; a store that cannot answer is the service's failure (503).
    private func body(of source: StoredBytes, _ range: ClosedRange<Int64>?, _ context: AppRequestContext) async throws -> ResponseBody {
        switch source {
        case .file(let path):
            guard let range else { return try await fileIO.loadFile(path: path, context: context) }
            return try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
        case .object(let client, let key, let etag):
            do {
                let object = try await client.get(key, range: range.map { $0.lowerBound..<($0.upperBound + 1) }, ifMatch: etag)
                return ResponseBody(asyncSequence: object.body)
            } catch let error as S3Error where [404, 412].contains(error.status) {
                throw Problem.conflict("The object `\(key)` has changed or gone since the download stored it (\(error.code)).")
            } catch {
                context.logger.warning("an object could not be read", metadata: ["key": "\(key)", "error": "\(error)"])
                throw Problem.objectStorageUnavailable
            }
        }
    }
}

extension HTTPField.Name {
    /// `nosniff`: the browser takes the `Content-Type` as given.
    static let contentTypeOptions = Self("X-Content-Type-Options")!
}
