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
    let tasks: TaskService
    let pages: DashboardPages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("ui") { _, _ in Self.redirect(to: "/ui/sessions") }
        let ui = router.group("ui")
        ui.get("sign-in", use: signInPage)
        ui.post("sign-in", use: signIn)
        ui.post("sign-out", use: signOut)
        ui.get("sessions", use: sessionsPage)
        ui.get("sessions/:identifier", use: sessionPage)
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
                    "message",
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
                "stored": Self.size(detail.storedBytes),
                "webhook": detail.webhook?.state.rawValue ?? "none", "backlog": detail.pendingDeliveries,
            ]
        }
        return pages.render("sessions", .init(title: "Sessions", signedIn: signedIn), ["sessions": rows, "hasSessions": !rows.isEmpty])
    }

    /// A session's tasks (in one state with `?state=`), with their progress.
    @Sendable func sessionPage(request: Request, context: AppRequestContext) async throws -> Response {
        guard let signedIn = try await DashboardSignIn.of(request, dashboard) else { return Self.redirect(to: "/ui/sign-in") }
        let identifier = context.parameters.get("identifier") ?? ""
        let session: Session
        do {
            session = try await sessions.session(identifier: identifier, tenantID: signedIn.principal.tenantID)
        } catch let error as DomainError {
            // Another tenant's session does not exist for this key, as on the API.
            let problem = Problem(error)
            return pages.render("message", .init(title: problem.title, signedIn: signedIn, problem: problem.detail), status: problem.status)
        }
        let state = request.uri.queryParameters.get("state").flatMap(TaskState.init(rawValue:))
        let list = try await tasks.tasks(in: session.rowID, after: 0, state: state, limit: 1000)
        let filters: [[String: Any]] = ([nil] + TaskState.allCases).map { filter in
            [
                "label": filter?.rawValue ?? "all", "current": filter == state,
                "link": "/ui/sessions/\(identifier)" + (filter.map { "?state=\($0.rawValue)" } ?? ""),
            ]
        }
        return pages.render(
            "session",
            .init(title: identifier, signedIn: signedIn),
            [
                "identifier": identifier, "tasks": list.map(Self.row), "hasTasks": !list.isEmpty, "filters": filters,
                "stateFilter": state != nil,
            ]
        )
    }

    /// A task as a row of the session page.
    private static func row(_ task: TransferTask) -> [String: Any] {
        let (done, total) =
            task.kind == .upload
            ? (task.countOfBytesSent, task.countOfBytesExpectedToSend) : (task.countOfBytesReceived, task.countOfBytesExpected)
        let status: String
        let tone: String
        switch (task.state, task.error, task.waitingReason) {
        case (.completed, .some(let error), _): (status, tone) = ("failed: \(error.code.rawValue)", "failed")
        case (.running, _, .some(let reason)): (status, tone) = ("waiting: \(reason.rawValue)", "suspended")
        default: (status, tone) = (task.state.rawValue, task.state.rawValue)
        }
        var row: [String: Any] = [
            "identifier": task.taskIdentifier, "status": status, "tone": tone, "url": task.originalRequest.url,
            "bytes": total >= 0 ? "\(Self.size(done)) of \(Self.size(total))" : Self.size(done),
        ]
        if total > 0 || task.state == .completed && task.error == nil {
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
            row["fraction"] = fraction
            row["percent"] = "\(Int(fraction * 100)) %"
        }
        return row
    }

    private static func size(_ bytes: Int64) -> String {
        bytes.formatted(.byteCount(style: .binary, spellsOutZero: false))
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
