import HTTPTypes
import Hummingbird
import TransferdDomain

/// tus's version handshake on `/v1/files`: a request naming another protocol version than 1.0.0 gets 412 with
/// `Tus-Version`, and every answer, problems included, carries `Tus-Resumable: 1.0.0`.
struct TusResumableMiddleware: RouterMiddleware {
    static let version = "1.0.0"

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            if request.method != .options, let asked = request.headers[.tusResumable], asked != Self.version {
                throw Problem(
                    .tusVersionUnsupported,
                    detail: "This server speaks tus \(Self.version), not \(asked).",
                    headers: [.tusVersion: Self.version]
                )
            }
            var response = try await next(request, context)
            response.headers[.tusResumable] = Self.version
            return response
        } catch {
            var problem = Problem(error, for: request, logger: context.logger)
            problem.headers[.tusResumable] = Self.version
            throw problem
        }
    }
}

extension HTTPField.Name {
    static let tusResumable = Self("Tus-Resumable")!
    static let tusVersion = Self("Tus-Version")!
    static let tusExtension = Self("Tus-Extension")!
    static let tusMaxSize = Self("Tus-Max-Size")!
    static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    static let uploadLength = Self("Upload-Length")!
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadMetadata = Self("Upload-Metadata")!
    static let uploadExpires = Self("Upload-Expires")!
    static let uploadChecksum = Self("Upload-Checksum")!
    static let uploadDeferLength = Self("Upload-Defer-Length")!
}
