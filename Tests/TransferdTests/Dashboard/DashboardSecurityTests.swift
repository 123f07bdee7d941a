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
        let dataDirectory = TestService.temporaryDataDirectory()
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
}
