import Foundation
import Hummingbird
import Logging
import TransferdDomain
import TransferdJSON

/// The per-request context of transferd's router: JSON in and out, with problems for every decoding failure.
package struct AppRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// Who the request acts for, set by `AuthenticationMiddleware`; its tenant joins the request's log metadata.
    package var principal: Principal? {
        didSet { RequestLogScope.current?.set("tenant", principal.map { String($0.tenantID) }) }
    }
    /// The session a `/v1/sessions/{identifier}/…` route names, set by `SessionMiddleware`; it joins the request's
    /// log metadata.
    package var resolvedSession: Session? {
        didSet { RequestLogScope.current?.set("session", resolvedSession?.identifier) }
    }

    /// Whether the credential the request came with still holds (its key not revoked, its dashboard session not
    /// ended), for a response that outlasts a moment: an event stream asks at every heartbeat. Set by
    /// `AuthenticationMiddleware`.
    package var credentialHolds: @Sendable () async -> Bool = { true }

    /// What the request authenticated with, set by `AuthenticationMiddleware`: content opens with anything but the
    /// dashboard's cookie.
    package var credential: Credential = .apiKey

    /// The client's address as the connection shows it (a proxy's, behind one): what the dashboard's requests are
    /// rate-limited by before anyone is signed in.
    package let clientAddress: String

    package init(source: Source) {
        self.coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// JSON request bodies larger than this are refused with 413.
    package var maxUploadSize: Int { 1 << 20 }
    package var requestDecoder: JSONRequestDecoder { JSONRequestDecoder() }
    package var responseEncoder: StreamingJSONEncoder { JSONCoding.encoder }

    /// The tenant of the authenticated request (every route but the health checks is authenticated).
    package var tenantID: Int64 {
        guard let principal else { preconditionFailure("a route was reached without authentication") }
        return principal.tenantID
    }

    /// The session the route's path names (every route under `/v1/sessions/{identifier}/` has one).
    package var session: Session {
        guard let resolvedSession else { preconditionFailure("a session route was reached without its session") }
        return resolvedSession
    }
}
