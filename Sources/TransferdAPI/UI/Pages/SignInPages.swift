import Foundation
import HTTPTypes
import Hummingbird
import TransferdServices

/// `/ui/sign-in` and `/ui/sign-out`: an API key exchanged for a session cookie, and the session ended.
struct SignInPages: Sendable {
    let gate: DashboardGate
    private var dashboard: DashboardSessionService { gate.dashboard }

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("sign-in", use: signInPage)
        routes.post("sign-in", use: signIn)
        routes.post("sign-out", use: gate.action(SignOutForm.self, signOut))
        return routes
    }

    /// The sign-in form.
    struct SignInForm: Decodable {
        var key: String?
    }

    /// The sign-out form: nothing but its CSRF token.
    struct SignOutForm: Decodable, Sendable {}

    @Sendable func signInPage(request: Request, context: AppRequestContext) async throws -> Response {
        if try await DashboardSignIn.of(request, dashboard) != nil { return .seeOther("/ui/sessions") }
        return gate.pages.render("signin", .init(title: "Sign in"))
    }

    @Sendable func signIn(request: Request, context: AppRequestContext) async throws -> Response {
        guard Self.isSameSite(request) else {
            let detail = "Sign in on transferd's own sign-in page: this form was sent from another site."
            return gate.pages.render("signin", .init(title: "Sign in", problem: detail), status: .forbidden)
        }
        let form = try? await DashboardForm.read(SignInForm.self, from: request)
        guard let key = form?.key, !key.isEmpty else {
            return gate.pages.render("signin", .init(title: "Sign in", problem: "Enter an API key."), status: .badRequest)
        }
        switch try await dashboard.signIn(apiKey: key) {
        case .failure(let failure):
            let detail = failure == .revoked ? "The API key has been revoked." : "The API key is not valid."
            return gate.pages.render("signin", .init(title: "Sign in", problem: detail), status: .unauthorized)
        case .success(let (token, _)):
            var response = Response.seeOther("/ui/sessions")
            response.setCookie(Self.cookie(token, maxAge: Int(dashboard.lifetime), request: request))
            return response
        }
    }

    @Sendable func signOut(form: SignOutForm, context: AppRequestContext, signedIn: DashboardSignIn) async throws -> Response {
        try await dashboard.signOut(signedIn.session)
        var response = Response.seeOther("/ui/sign-in")
        response.setCookie(Cookie(name: DashboardSignIn.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    /// Whether a sign-in comes from the dashboard's own page, as the browser says (`Sec-Fetch-Site`, else
    /// `Origin` against `Host`), so that no other site signs a visitor in with the attacker's key (login CSRF). A
    /// client that sends neither header is no browser, and may sign in.
    static func isSameSite(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] { return site == "same-origin" || site == "none" }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
        guard let host = request.head.authority, let components = URLComponents(string: origin), let originHost = components.host
        else { return false }
        return (components.port.map { "\(originHost):\($0)" } ?? originHost).lowercased() == host.lowercased()
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
}
