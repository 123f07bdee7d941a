import Hummingbird
import TransferdDomain
import TransferdServices

/// Who is signed in to the dashboard on a request: the principal of the key they signed in with, and their session
/// (its CSRF token). Read from the session cookie.
struct DashboardSignIn: Sendable {
    var principal: Principal
    var session: DashboardSession
    /// The cookie's token, by which the session is looked up again.
    var token: String

    /// The cookie that carries a dashboard session's token.
    static let cookieName = "transferd_dashboard"

    /// The signed-in person on `request`; nil without a cookie, or with one whose session ended.
    static func of(_ request: Request, _ service: DashboardSessionService) async throws -> DashboardSignIn? {
        guard let token = request.cookies[cookieName]?.value, !token.isEmpty,
            let (principal, session) = try await service.resolve(token: token)
        else { return nil }
        return DashboardSignIn(principal: principal, session: session, token: token)
    }
}
