import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdServices

/// `Idempotency-Key` on creating requests: a retry with the same key and the same request within 24 hours gets the
/// original response (same status, same resource) instead of creating again; the same key with another request is
/// 422, and a retry while the first is still being handled is 409. Only successful creations are kept, so a
/// request that failed may simply be retried.
struct IdempotencyMiddleware: RouterMiddleware {
    /// What identifies "the same request": its JSON body, or for file uploads (whose bodies may be huge) the
    /// headers that describe the file.
    enum Fingerprint: Sendable {
        case body
        case headers([HTTPField.Name])
    }

    let keys: IdempotencyService
    let fingerprint: Fingerprint

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let key = request.headers[.idempotencyKey] else { return try await next(request, context) }
        guard (1...255).contains(key.utf8.count), key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw Problem.invalidField("Idempotency-Key", "must be 1 to 255 printable ASCII characters")
        }
        var request = request
        let digest = try await fingerprint(of: &request, context: context)
        switch try await keys.claim(key, tenantID: context.tenantID, fingerprint: digest) {
        case .replay(let kept):
            return Response(kept)
        case .inFlight:
            throw Problem.conflict("A request with this Idempotency-Key is still being handled; retry when it has answered.")
        case .reusedWithOtherRequest:
            throw Problem(
                .idempotencyKeyReused,
                detail: "This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request."
            )
        case .claimed:
            do {
                let (response, kept) = try await Self.buffered(try await next(request, context))
                if (200..<300).contains(kept.status) {
                    try await keys.keep(kept, key: key, tenantID: context.tenantID)
                } else {
                    try await keys.release(key, tenantID: context.tenantID)
                }
                return response
            } catch {
                try? await keys.release(key, tenantID: context.tenantID)
                throw error
            }
        }
    }

    /// The SHA-256 of the method, the path and what identifies the request; a body read for it stays readable.
    private func fingerprint(of request: inout Request, context: AppRequestContext) async throws -> String {
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method) \(request.uri.path)\n".utf8))
        switch fingerprint {
        case .body:
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            body.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        case .headers(let names):
            for name in names { hasher.update(data: Data("\(name): \(request.headers[name] ?? "")\n".utf8)) }
        }
        return hasher.finalize().hex
    }

    /// The response with its body read into memory (creating routes answer small JSON bodies), and what is kept of it.
    private static func buffered(_ response: Response) async throws -> (Response, IdempotencyRecord.Response) {
        let collector = BodyCollector()
        try await response.body.write(collector)
        var buffered = response
        buffered.body = ResponseBody(byteBuffer: collector.buffer)
        let kept = IdempotencyRecord.Response(
            status: response.status.code,
            headers: response.headers.map { [$0.name.rawName, $0.value] },
            body: Data(collector.buffer.readableBytesView)
        )
        return (buffered, kept)
    }
}

/// Gathers a response body in memory.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        self.buffer.writeImmutableBuffer(buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension Response {
    /// A kept response, replayed as it was.
    fileprivate init(_ kept: IdempotencyRecord.Response) {
        var headers = HTTPFields()
        for pair in kept.headers where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { headers.append(HTTPField(name: name, value: pair[1])) }
        }
        self.init(
            status: HTTPResponse.Status(code: kept.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: kept.body))
        )
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}
