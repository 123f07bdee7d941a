import Foundation
import Hummingbird

/// The per-request context of transferd's router: JSON in and out, with problems for every decoding failure.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who the request acts for, set by `AuthenticationMiddleware`.
    public var principal: Principal?

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// JSON request bodies larger than this are refused with 413.
    public var maxUploadSize: Int { 1 << 20 }
    public var requestDecoder: JSONRequestDecoder { JSONRequestDecoder() }
    public var responseEncoder: JSONEncoder { JSONCoding.encoder }

    /// The tenant of the authenticated request (every route but the health checks is authenticated).
    var tenantID: Int64 {
        guard let principal else { preconditionFailure("a route was reached without authentication") }
        return principal.tenantID
    }
}
