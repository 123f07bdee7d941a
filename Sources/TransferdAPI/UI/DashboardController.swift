import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/`: the dashboard. Signing in exchanges an API key for a session cookie (`HttpOnly`, `SameSite=Strict`,
/// `Secure` behind TLS) that grants exactly what the key grants; every form that changes state carries the
/// session's CSRF token. Assets need no sign-in; pages with data send a signed-out visitor to the sign-in page.
struct DashboardController: Sendable {
    let dashboard: DashboardSessionService
    let sessions: SessionService
    let pages: DashboardPages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("ui") { _, _ in Self.redirect(to: "/ui/sessions") }
        let ui = router.group("ui")
        ui.get("sign-in", use: signInPage)
        ui.post("sign-in", use: signIn)
        ui.post("sign-out", use: signOut)
        ui.get("sessions", use: sessionsPage)
        DashboardAssets.addRoutes(to: ui.group("assets"))
    }

    @Sendable func signInPage(request: Request, context: AppRequestContext) async throws -> Response {
        if try await DashboardSignIn.of(request, dashboard) != nil { return Self.redirect(to: "/ui/sessions") }
        return pages.render("signin", .init(title: "Sign in"))
    }

    @Sendable func signIn(request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await Self.form(SignInForm.self, request)
        guard let key = form?.key, !key.isEmpty else {
            return pages.render("signin", .init(title: "Sign in", problem: "Enter an API key."), status: .badRequest)
        }
        switch try await dashboard.signIn(apiKey: key) {
        case .failure(let failure):
            let detail = failure == .revoked ? "The API key has been revoked." : "The API key is not valid."
            return pages.render("signin", .init(title: "Sign in", problem: detail), status: .unauthorized)
        case .success(let (token, _)):
            var response = Self.redirect(to: "/ui/sessions")
            response.setCookie(Self.cookie(token, maxAge: Int(dashboard.lifetime), request: request))
            return response
        }
    }

    @Sendable func signOut(request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await Self.form(SignOutForm.self, request)
        if let signedIn = try await DashboardSignIn.of(request, dashboard) {
            guard Self.constantTimeEquals(form?.csrf ?? "", signedIn.session.csrfToken) else {
                return pages.render(
                    "signin",
                    .init(
                        title: "Sign out",
                        signedIn: signedIn,
                        problem: "The form was not sent by this dashboard (its CSRF token is missing or wrong)."
                    ),
                    status: .forbidden
                )
            }
            if let token = request.cookies[DashboardSignIn.cookieName]?.value { try await dashboard.signOut(token: token) }
        }
        var response = Self.redirect(to: "/ui/sign-in")
        response.setCookie(Self.cookie("", maxAge: 0, request: request))
        return response
    }

    @Sendable func sessionsPage(request: Request, context: AppRequestContext) async throws -> Response {
        guard let signedIn = try await DashboardSignIn.of(request, dashboard) else { return Self.redirect(to: "/ui/sign-in") }
        let list = try await sessions.list(after: 0, limit: 1000, tenantID: signedIn.principal.tenantID)
        let details = try await sessions.details(sessionIDs: list.map(\.rowID))
        let rows: [[String: Any]] = list.map { session in
            let detail = details[session.rowID] ?? .init()
            return [
                "identifier": session.identifier, "state": session.state.rawValue,
                "running": (detail.taskCounts[.running] ?? 0) + (detail.taskCounts[.canceling] ?? 0),
                "suspended": detail.taskCounts[.suspended] ?? 0, "completed": detail.taskCounts[.completed] ?? 0,
                "stored": detail.storedBytes.formatted(.byteCount(style: .binary, spellsOutZero: false)),
                "webhook": detail.webhook?.state.rawValue ?? "none", "backlog": detail.pendingDeliveries,
            ]
        }
        return pages.render("sessions", .init(title: "Sessions", signedIn: signedIn), ["sessions": rows, "hasSessions": !rows.isEmpty])
    }

    /// The session cookie: `HttpOnly`, `SameSite=Strict`, for the whole site (the dashboard's live updates read
    /// `/v1/…` streams with it), `Secure` when the request came over TLS (as a proxy in front says).
    private static func cookie(_ value: String, maxAge: Int, request: Request) -> Cookie {
        Cookie(
            name: DashboardSignIn.cookieName,
            value: value,
            maxAge: maxAge,
            path: "/",
            secure: request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https" || request.uri.scheme == .https,
            httpOnly: true,
            sameSite: .strict
        )
    }

    /// The sign-in form.
    struct SignInForm: Decodable {
        var key: String?
    }

    /// The sign-out form, with the session's CSRF token.
    struct SignOutForm: Decodable {
        var csrf: String?
    }

    /// A form's fields (`application/x-www-form-urlencoded`, at most 64 KiB); nil when the body is not such a form.
    private static func form<Form: Decodable>(_ type: Form.Type, _ request: Request) async throws -> Form? {
        let body = try await request.body.collect(upTo: 64 << 10)
        return try? URLEncodedFormDecoder().decode(type, from: String(buffer: body))
    }

    private static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
