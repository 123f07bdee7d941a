import Crypto
import Foundation
import TransferdDomain

/// Signing in to the dashboard: an API key is exchanged for a session whose random token the browser keeps in an
/// `HttpOnly` cookie. The key never travels again; the session grants exactly what the key grants, ends when it
/// expires, when the person signs out, or when the key is revoked, and carries the token that state-changing
/// forms send back (CSRF).
package struct DashboardSessionService: Sendable {
    let store: any Store
    let clock: any WallClock
    let keys: APIKeyService
    /// How long a session lasts from sign-in.
    package let lifetime: TimeInterval
    /// Sessions one key keeps at once: signing in again ends the oldest beyond them.
    package static let maximumPerKey = 10

    package init(store: any Store, clock: any WallClock, keys: APIKeyService, lifetime: TimeInterval = 8 * 3600) {
        self.store = store
        self.clock = clock
        self.keys = keys
        self.lifetime = lifetime
    }

    /// A session signed in with the API key `apiKey` and its cookie's token; why not, for a key that is not valid.
    package func signIn(
        apiKey: String
    ) async throws -> Result<(token: String, session: DashboardSession), APIKeyService.AuthenticationFailure> {
        let principal: Principal
        switch try await keys.authenticate(apiKey) {
        case .success(let signedIn): principal = signedIn
        case .failure(let failure): return .failure(failure)
        }
        let token = Self.randomHex()
        let now = clock.now
        let session = DashboardSession(
            tokenHash: Self.hash(token),
            apiKeyID: principal.keyID,
            csrfToken: Self.randomHex(),
            createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime)
        )
        try await store.write { repositories in
            try await repositories.dashboardSessions.deleteExpired(before: now)
            try await repositories.dashboardSessions.insert(session)
            try await repositories.dashboardSessions.deleteAllButNewest(Self.maximumPerKey, apiKeyID: session.apiKeyID)
        }
        return .success((token, session))
    }

    /// The principal and session a cookie's token stands for; nil when it names none, or one that expired or whose
    /// key was revoked.
    package func resolve(token: String) async throws -> (principal: Principal, session: DashboardSession)? {
        let hash = Self.hash(token)
        guard let session = try await store.lookup({ try await $0.dashboardSessions.find(tokenHash: hash) }), session.expiresAt > clock.now,
            let principal = try await keys.principal(keyID: session.apiKeyID)
        else { return nil }
        return (principal, session)
    }

    /// Ends `session`: its cookie signs in no more.
    package func signOut(_ session: DashboardSession) async throws {
        try await store.write { try await $0.dashboardSessions.delete(tokenHash: session.tokenHash) }
    }

    private static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// 32 random bytes in hex.
    private static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
