import HTTPTypes
import Hummingbird
import Mustache
import TransferdDomain

/// The dashboard's pages, rendered on the server from Mustache templates that are embedded in the binary
/// (`PackageResources`, SwiftPM's `embedInCode`), so that the service needs no file beside it.
struct DashboardPages: Sendable {
    private let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        let templates = [
            ("layout", PackageResources.layout_mustache), ("signin", PackageResources.signin_mustache),
            ("sessions", PackageResources.sessions_mustache), ("session", PackageResources.session_mustache),
            ("sessiontabs", PackageResources.sessiontabs_mustache), ("taskrow", PackageResources.taskrow_mustache),
            ("webhook", PackageResources.webhook_mustache),
            ("task", PackageResources.task_mustache), ("deliveries", PackageResources.deliveries_mustache),
            ("backgroundtasks", PackageResources.backgroundtasks_mustache), ("fetches", PackageResources.fetches_mustache),
            ("files", PackageResources.files_mustache),
            ("keys", PackageResources.keys_mustache), ("message", PackageResources.message_mustache),
            ("deletesession", PackageResources.deletesession_mustache),
        ]
        for (name, bytes) in templates {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        self.library = library
    }

    /// What every page's layout shows: its title, whether someone is signed in (the sign-out form and its CSRF
    /// token), and a problem's `detail` when the last action failed.
    struct Layout {
        var title: String
        var signedIn: DashboardSignIn?
        var problem: String?
    }

    /// The page `template` for `values` (each page's own) within the layout, as an HTML response.
    func render(_ template: String, _ layout: Layout, _ values: [String: Any] = [:], status: HTTPResponse.Status = .ok) -> Response {
        var context = values
        context["title"] = layout.title
        context["problem"] = layout.problem
        if let signedIn = layout.signedIn {
            context["signedIn"] = true
            context["csrf"] = signedIn.session.csrfToken
            context["admin"] = signedIn.principal.admin
        }
        let html = library.render(context, withTemplate: template) ?? ""
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
                .contentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}
