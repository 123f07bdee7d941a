import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdServices

/// Every route but the health checks and the dashboard's own (`/ui/`, which signs people in) needs
/// `Authorization: Bearer <API key>`: a missing, unknown or revoked key is answered 401 with `WWW-Authenticate`,
/// and each key's requests pass its rate limit (429 with `Retry-After`). A request that only reads (`GET`,
/// `HEAD`) may instead carry a dashboard session's cookie, so that the dashboard's pages can stream events; a cookie
/// never authorizes a change, so no other site can make a browser change anything. Content (what tenants and origins
/// wrote) is never opened by the cookie, so that a page among it cannot act with a signed-in operator's rights: the
/// middleware says which credential a request came with (``Credential``), and ``ContentResponder``, which every
/// content route answers with, refuses the cookie. The dashboard links to content with `ContentLinks`, signed for the
/// operator's key, one path and a few minutes.
package struct AuthenticationMiddleware: RouterMiddleware {
    package static let openPaths: Set<String> = ["/healthz", "/readyz"]

    package let keys: APIKeyService
    package let dashboard: DashboardSessionService
    /// `--no-auth` (loopback only): every request acts for the default tenant.
    package let disabled: Bool
    package let limiter: RequestRateLimiter
    package let contentLinks: ContentLinks
    package let clock: any WallClock

    package func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if Self.openPaths.contains(path) { return try await next(request, context) }
        // The dashboard signs people in itself; its pages and sign-in attempts count against the client's address.
        if path == "/ui" || path.hasPrefix("/ui/") {
            try limit("ui|\(context.clientAddress)", "This address may send")
            return try await next(request, context)
        }
        var context = context
        if disabled {
            context.principal = .unauthenticated
        } else {
            (context.principal, context.credential, context.credentialHolds) = try await authenticate(request)
        }
        try limit(context.principal?.keyID ?? "", "This API key may send")
        return try await next(request, context)
    }

    /// Takes a request from `key`'s allowance; throws 429 with `Retry-After` when it is spent. `who` begins the detail.
    private func limit(_ key: String, _ who: String) throws(Problem) {
        guard let wait = limiter.take(for: key) else { return }
        let seconds = max(1, Int(wait.timeInterval.rounded(.up)))
        throw Problem(
            .rateLimited,
            detail: "\(who) \(Int(limiter.rate)) requests a second (bursts of \(Int(limiter.burst))); retry in \(seconds) s.",
            headers: [.retryAfter: String(seconds)]
        )
    }

    /// Who `request` acts for, with what, and how to tell later whether its credential still holds.
    private func authenticate(_ request: Request) async throws -> (Principal, Credential, @Sendable () async -> Bool) {
        guard let header = request.headers[.authorization] else {
            guard [.get, .head].contains(request.method) else {
                throw Self.unauthorized("This route needs `Authorization: Bearer <API key>`.", error: nil)
            }
            if let signature = request.uri.queryParameters[Substring(ContentLinks.signatureParameter)] {
                let (principal, holds) = try await linked(request, signature: String(signature))
                return (principal, .signedLink, holds)
            }
            if let signedIn = try await DashboardSignIn.of(request, dashboard) {
                let (dashboard, token) = (dashboard, signedIn.token)
                return (signedIn.principal, .dashboardCookie, { (try? await dashboard.resolve(token: token)) != nil })
            }
            throw Self.unauthorized("This route needs `Authorization: Bearer <API key>`.", error: nil)
        }
        let scheme = "bearer "
        guard header.prefix(scheme.count).lowercased() == scheme else {
            throw Self.unauthorized("The Authorization header must use the Bearer scheme with an API key.", error: "invalid_request")
        }
        var token = header.dropFirst(scheme.count)
        while token.first?.isWhitespace == true { token.removeFirst() }
        while token.last?.isWhitespace == true { token.removeLast() }
        switch try await keys.authenticate(String(token)) {
        case .success(let principal): return (principal, .apiKey, keyHolds(principal.keyID))
        case .failure(.invalid): throw Self.unauthorized("The API key is not valid.", error: "invalid_token")
        case .failure(.revoked): throw Self.unauthorized("The API key has been revoked.", error: "invalid_token")
        }
    }

    /// Whether the key `id` is still not revoked.
    private func keyHolds(_ id: String) -> @Sendable () async -> Bool {
        { [keys] in (try? await keys.principal(keyID: id)) != nil }
    }

    /// The principal of a signed link, for its path, while its key lives.
    private func linked(_ request: Request, signature: String) async throws -> (Principal, @Sendable () async -> Bool) {
        let query = request.uri.queryParameters
        let checked = contentLinks.keyID(
            path: request.uri.path,
            expires: query[Substring(ContentLinks.expiresParameter)].map(String.init),
            keyID: query[Substring(ContentLinks.keyParameter)].map(String.init),
            signature: signature,
            now: clock.now
        )
        switch checked {
        case .success(let keyID):
            guard let principal = try await keys.principal(keyID: keyID) else {
                throw Self.unauthorized("The link's API key has been revoked.", error: "invalid_token")
            }
            return (principal, keyHolds(keyID))
        case .failure(.expired): throw Self.unauthorized("The link has expired: open the dashboard's page again for a new one.", error: nil)
        case .failure(.malformed), .failure(.forged): throw Self.unauthorized("The link's signature is not valid.", error: nil)
        }
    }

    /// A 401 with the `WWW-Authenticate` challenge, naming the OAuth `error` when there is one.
    static func unauthorized(_ detail: String, error: String?) -> Problem {
        let challenge = "Bearer realm=\"transferd\"" + (error.map { ", error=\"\($0)\"" } ?? "")
        return Problem(
            .unauthorized,
            detail: detail,
            headers: [.wwwAuthenticate: challenge]
        )
    }

    package init(
        keys: APIKeyService,
        dashboard: DashboardSessionService,
        disabled: Bool,
        limiter: RequestRateLimiter,
        contentLinks: ContentLinks,
        clock: any WallClock
    ) {
        self.keys = keys
        self.dashboard = dashboard
        self.disabled = disabled
        self.limiter = limiter
        self.contentLinks = contentLinks
        self.clock = clock
    }
}
