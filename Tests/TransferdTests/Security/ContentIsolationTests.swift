import Foundation
import Testing
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Content (what origins, subscribers and tenants wrote) never runs as a page of transferd's origin: it is served as
/// a sandboxed, unsniffed attachment, and the dashboard's cookie does not open it; the dashboard links to it with
/// short-lived signed links instead. The attack: a non-admin key stages an HTML page whose script would have a
/// signed-in admin's browser issue an admin key.
@Suite struct ContentIsolationTests {
    static let page = """
        <!doctype html><title>evil</title><script>
        document.title = "pwned";
        fetch("/ui/keys").then(r => r.text()).then(html => {
          const csrf = html.match(/name="csrf" value="([0-9a-f]+)"/)[1];
          fetch("/ui/keys", {method: "POST", body: new URLSearchParams({csrf, name: "stolen", tenant: "default", admin: "on"})});
        });
        </script>
        """

    @Test func contentIsAnAttachmentInASandboxAndTheCookieDoesNotOpenIt() async throws {
        let clock = ManualClock()
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory, configure: { $0.clock = clock }) { api in
                // setup: a tenant's key stages the page; a download and its content
                let tenantKey = try await KeyManagement.create(
                    dataDirectory: dataDirectory,
                    name: "tenant",
                    tenant: "default",
                    admin: false
                )
                let tenant = APIClient(baseURL: api.baseURL, key: tenantKey)
                let staged = try await tenant.send(.PUT, "/v1/files/evil.html", headers: [("Content-Type", "text/html")], body: Self.page)
                #expect(staged.status == 201)
                try await api.createSession("isolated")
                _ = try await api.createTask("isolated", url: origin.url("/files/100?name=page.html"))
                try await api.waitForCompletion("isolated", 1)
                let browser = DashboardClient(api)
                try await browser.signIn()
                let anonymous = APIClient(baseURL: api.baseURL, key: nil)

                // act
                let withKey = try await api.send(.GET, "/v1/files/evil.html/content")
                let download = try await api.send(.GET, "/v1/sessions/isolated/tasks/1/content")
                let withCookie = try await browser.get("/v1/files/evil.html/content")
                let link = try #require(try await browser.get("/ui/files").contentLink(to: "/v1/files/evil.html/content"))
                let linked = try await anonymous.send(.GET, link)
                let forged = try await anonymous.send(.GET, link.replacingOccurrences(of: "signature=", with: "signature=0"))
                let elsewhere = try await anonymous.send(.GET, link.replacingOccurrences(of: "evil.html", with: "other.html"))
                clock.advance(by: 301)
                let expired = try await anonymous.send(.GET, link)

                // verify: every content response is a sandboxed attachment
                for reply in [withKey, download, linked] {
                    #expect(reply.status == 200)
                    #expect(reply.headers.first(name: "Content-Security-Policy") == "sandbox; default-src 'none'")
                    #expect(reply.headers.first(name: "X-Content-Type-Options") == "nosniff")
                }
                #expect(withKey.headers.first(name: "Content-Disposition") == #"attachment; filename="evil.html""#)
                #expect(download.headers.first(name: "Content-Disposition") == #"attachment; filename="100""#)
                #expect(withKey.headers.first(name: "Content-Type") == "text/html", "the type stays what the uploader said")
                #expect(linked.text == Self.page)
                // the cookie opens no content, and a link works only as signed, for its path, until it expires
                #expect(withCookie.status == 401 && withCookie.text.contains("cookie does not open it"))
                #expect(forged.status == 401 && forged.problem?.detail == "The link's signature is not valid.")
                #expect(elsewhere.status == 401)
                #expect(expired.status == 401 && expired.problem?.detail.hasPrefix("The link has expired") == true)
            }
        }
    }

    /// Every route of the route table that a browser may `GET` with the cookie, walked with the cookie of a signed-in
    /// admin and parameters that name real content (a download's, an upload's reply, a staged file, a fetch's latest
    /// version): none answers content, so that a content route added later cannot be missed.
    @Test func noRouteOfTheTableOpensContentForTheCookie() async throws {
        try await OriginServer.with { origin in
            try await UploadReceiver.with { receiver in
                try await TestService.with { api in
                    // setup: content of every kind, and a signed-in browser
                    #expect(
                        try await api.send(.PUT, "/v1/files/evil.html", headers: [("Content-Type", "text/html")], body: Self.page).status
                            == 201
                    )
                    try await api.createSession("isolated")
                    _ = try await api.createTask("isolated", url: origin.url("/files/100?name=page.html"))
                    _ = try await api.createTask(
                        "isolated",
                        url: receiver.url("raw", "reply=stored"),
                        kind: "upload",
                        extra: #", "from": {"file": "evil.html"}"#
                    )
                    let fetch = try await BackgroundFetchTests.schedule(api, "isolated", url: origin.url("/feed/prices"))
                    for task in [1, 2] { _ = try await api.waitForCompletion("isolated", task) }
                    _ = try await BackgroundFetchTests.performed(api, "isolated", count: 1)
                    let browser = DashboardClient(api)
                    try await browser.signIn()
                    let values = [
                        "identifier": "isolated", "fileID": "evil.html", "fetchID": "\(fetch.id)", "deliveryID": "1",
                        "backgroundTaskID": "1",
                        "keyID": "none", "timestamp": "0", "name": "app.css", "id": "1", "n": "1",
                    ]

                    // act: every GET route outside the dashboard's own pages, with the cookie alone
                    var answers: [(path: String, page: DashboardClient.Page)] = []
                    for operation in try await RoutedOperations.all().sorted() where operation.hasPrefix("GET /v1/") {
                        var path = String(operation.dropFirst("GET ".count))
                        for (name, value) in values { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
                        let paths =
                            path.contains("{taskIdentifier}")
                            ? ["1", "2"].map { path.replacingOccurrences(of: "{taskIdentifier}", with: $0) } : [path]
                        for path in paths { answers.append((path, try await browser.get(path))) }
                    }

                    // verify: what answers is JSON, and the routes of content refuse the cookie
                    let content = [
                        "/v1/files/evil.html/content", "/v1/sessions/isolated/tasks/1/content",
                        "/v1/sessions/isolated/tasks/2/response-body",
                        "/v1/sessions/isolated/fetches/\(fetch.id)/content",
                    ]
                    for path in content {
                        let page = try #require(answers.first { $0.path == path }?.page, "\(path) is not routed")
                        #expect(page.status == 401 && page.text.contains("cookie does not open it"), "\(path): \(page.status) \(page.text)")
                    }
                    for (path, page) in answers where (200..<400).contains(page.status) {
                        #expect(page.headers.first(name: "Content-Disposition") == nil, "\(path) answered content")
                        #expect(page.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true, "\(path)")
                    }
                }
            }
        }
    }

    @Test(arguments: [
        ("report.csv", "report.csv"), ("../../etc/passwd", "etcpasswd"), ("\"quoted\"; x=1.html", "quotedx1.html"), ("", "content"),
    ])
    func aFilenameIsMadeSafe(name: String, safe: String) {
        #expect(ContentResponder.safeFilename(name) == safe)
    }

    @Test func aSignedInAdminWhoOpensThePageRunsNoScript() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            // setup
            let tenantKey = try await KeyManagement.create(dataDirectory: dataDirectory, name: "tenant", tenant: "default", admin: false)
            let staged = try await APIClient(baseURL: api.baseURL, key: tenantKey).send(
                .PUT,
                "/v1/files/evil.html",
                headers: [("Content-Type", "text/html")],
                body: Self.page
            )
            #expect(staged.status == 201)

            // act: the admin opens the attacker's link and the dashboard's own, signed in, in Chromium
            let script = try InteropScript("content_isolation_browser.py", arguments: [api.baseURL, TestService.apiKey, "evil.html"])
            let output = try await script.result(timeout: .seconds(120))
            let seen = try JSONDecoder().decode([String: String].self, from: Data((output.split(separator: "\n").last ?? "").utf8))

            // verify: the script ran on neither visit, and no key was issued
            #expect(seen["directTitle"] != "pwned" && seen["linkTitle"] != "pwned", "\(seen)")
            #expect(seen["directText"]?.contains("cookie does not open it") == true, "\(seen)")
            #expect(seen["link"]?.contains("/v1/files/evil.html/content?expires=") == true)
            #expect(try await KeyManagement.list(dataDirectory: dataDirectory).allSatisfy { $0.name != "stolen" })
        }
    }
}
