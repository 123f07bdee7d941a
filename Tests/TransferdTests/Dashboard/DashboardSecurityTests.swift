import Foundation
import Testing

/// Signing in to the dashboard: an API key for an `HttpOnly`, `SameSite=Strict` cookie that grants what the key
/// grants (reads only on `/v1/…`), CSRF tokens on forms that change state, and signing out.
@Suite struct DashboardSecurityTests {
    @Test func aKeyIsExchangedForAStrictCookieThatSigningOutEnds() async throws {
        try await TestService.with { api in
            try await api.createSession("mine")
            let browser = DashboardClient(api)

            // act and verify: signed out, the data pages send to the sign-in page; assets need nothing
            #expect(try await browser.get("/ui/sessions").location == "/ui/sign-in")
            #expect(try await browser.get("/ui").location == "/ui/sessions")
            let css = try await browser.get("/ui/assets/dashboard.css")
            #expect(css.status == 200 && css.headers.first(name: "Content-Type") == "text/css; charset=utf-8")
            #expect(try await browser.get("/ui/assets/nothing.js").status == 404)

            // act: sign in
            let signedIn = try await browser.post("/ui/sign-in", form: ["key": TestService.apiKey])
            #expect(signedIn.status == 303 && signedIn.location == "/ui/sessions")
            let cookie = try #require(signedIn.setCookie)
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"] {
                #expect(cookie.contains(attribute), "\(cookie)")
            }
            #expect(!cookie.contains("Secure"), "plain HTTP on loopback")
            #expect(!cookie.contains(TestService.apiKey) && signedIn.text.isEmpty, "the key never comes back")

            // verify: the page, its CSRF token, and what the cookie opens on /v1
            let page = try await browser.get("/ui/sessions")
            #expect(page.status == 200 && page.text.contains(#"<a href="/ui/sessions/mine">mine</a>"#))
            let csrf = try #require(page.csrf)
            #expect(try await browser.get("/v1/sessions").status == 200, "a read, as the dashboard's streams are")
            let write = try await browser.send(
                .POST,
                "/v1/sessions/mine/tasks",
                headers: [("Content-Type", "application/json")],
                body: #"{"kind": "download", "url": "http://127.0.0.1:9/x"}"#
            )
            #expect(write.status == 401, "a cookie never authorizes a change")

            // act and verify: signing out without the form's token is refused, with it the session ends
            let forged = try await browser.post("/ui/sign-out", form: [:])
            #expect(forged.status == 403 && forged.text.contains("CSRF token is missing or wrong"))
            #expect(try await browser.get("/ui/sessions").status == 200, "still signed in")
            let kept = browser.cookie
            let signedOut = try await browser.post("/ui/sign-out", form: ["csrf": csrf])
            #expect(signedOut.location == "/ui/sign-in" && signedOut.setCookie?.contains("Max-Age=0") == true)
            browser.cookie = kept  // a copy of the cookie taken before signing out
            #expect(try await browser.get("/ui/sessions").location == "/ui/sign-in")
            #expect(try await browser.get("/v1/sessions").status == 401)
        }
    }

    @Test func behindTLSTheCookieIsSecure() async throws {
        try await TestService.with { api in
            let browser = DashboardClient(api)
            let signedIn = try await browser.post(
                "/ui/sign-in",
                form: ["key": TestService.apiKey],
                headers: [("X-Forwarded-Proto", "https")]
            )
            #expect(signedIn.setCookie?.contains("Secure") == true)
        }
    }

    @Test func aBadKeyGetsItsDetailAndTheCookieGrantsOnlyWhatItsKeyGrants() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            try await api.createSession("defaults")
            let other = try await KeyManagement.create(dataDirectory: dataDirectory, name: "other", tenant: "other", admin: false)
            var otherAPI = api
            otherAPI.key = other
            try await otherAPI.createSession("theirs")
            let browser = DashboardClient(api)

            // act
            let refused = try await browser.post("/ui/sign-in", form: ["key": "trd_0000000000000000_" + String(repeating: "0", count: 64)])
            _ = try await browser.post("/ui/sign-in", form: ["key": other])
            let page = try await browser.get("/ui/sessions")
            let crossTenant = try await browser.get("/v1/sessions/defaults")
            let crossTenantPage = try await browser.get("/ui/sessions/defaults")
            #expect(try await KeyManagement.revoke(dataDirectory: dataDirectory, id: String(other.split(separator: "_")[1])))

            // verify
            #expect(refused.status == 401 && refused.text.contains("The API key is not valid."))
            #expect(page.text.contains("theirs") && !page.text.contains("defaults"))
            #expect(crossTenant.status == 404, "another tenant's session does not exist for this cookie")
            #expect(crossTenantPage.status == 404 && crossTenantPage.text.contains("No session has the identifier `defaults`."))
            try await waitUntil { try await browser.get("/ui/sessions").location == "/ui/sign-in" }
        }
    }

    /// Every dashboard route of a session, signed in with another tenant's key: 404, as on the API, for pages and
    /// for forms (with a valid CSRF token), and nothing changes.
    @Test func anotherTenantsSessionIsNotFoundOnEveryDashboardRoute() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            try await api.createSession("private")
            _ = try await api.createTask("private", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
            let other = try await KeyManagement.create(dataDirectory: dataDirectory, name: "other", tenant: "other", admin: true)
            let browser = DashboardClient(api)
            let csrf = try await browser.signIn(other)

            let routes = try await RoutedOperations.all().filter { $0.contains(" /ui/sessions/{identifier}") }.sorted()
            #expect(routes.count >= 9, "\(routes)")
            for route in routes {
                let parts = route.split(separator: " ")
                let path = parts[1].replacingOccurrences(of: "{identifier}", with: "private")
                    .replacingOccurrences(of: "{taskIdentifier}", with: "1").replacingOccurrences(of: "{deliveryID}", with: "1")
                let page =
                    parts[0] == "GET"
                    ? try await browser.get(path) : try await browser.post(path, form: ["csrf": csrf, "url": "http://127.0.0.1:9/y"])
                #expect(page.status == 404, "\(route) answered \(page.status)")
                #expect(page.problem == "No session has the identifier `private`.", "\(route)")
            }
            #expect(try await api.tasks("private").map(\.state) == ["suspended"], "nothing changed")
        }
    }

    /// Every form that changes state refuses a request without the session's CSRF token, before it acts.
    @Test func everyFormRefusesAMissingCSRFToken() async throws {
        try await TestService.with { api in
            try await api.createSession("mine")
            _ = try await api.createTask("mine", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
            let browser = DashboardClient(api)
            try await browser.signIn()
            let forms = try await RoutedOperations.all().filter { $0.hasPrefix("POST /ui/") && $0 != "POST /ui/sign-in" }.sorted()
            for form in forms {
                let path = String(form.dropFirst("POST ".count)).replacingOccurrences(of: "{identifier}", with: "mine")
                    .replacingOccurrences(of: "{taskIdentifier}", with: "1").replacingOccurrences(of: "{deliveryID}", with: "1")
                    .replacingOccurrences(of: "{keyID}", with: "x")
                let refused = try await browser.post(path, form: ["url": "http://127.0.0.1:9/y", "name": "n", "tenant": "t"])
                #expect(refused.status == 403, "\(form) answered \(refused.status)")
                #expect(refused.problem == "The form was not sent by this dashboard (its CSRF token is missing or wrong).", "\(form)")
            }
            #expect(try await api.tasks("mine").map(\.state) == ["suspended"], "nothing changed")
            #expect(try await browser.get("/ui/sessions").status == 200, "still signed in")
        }
    }
}
