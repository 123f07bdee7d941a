import Foundation
import Testing

@testable import transferd

/// The dashboard against abuse: another site cannot sign a visitor in (login CSRF), its requests pass a rate limit
/// by client address, and one key keeps a bounded number of sessions, the oldest ended first.
@Suite struct DashboardAbuseTests {
    @Test(arguments: [
        [("Origin", "https://evil.example")], [("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "same-site")],
        [("Origin", "null")],
    ])
    func aSignInFromAnotherSiteIsRefused(headers: [(String, String)]) async throws {
        try await TestService.with { api in
            let browser = DashboardClient(api)
            let refused = try await browser.post("/ui/sign-in", form: ["key": TestService.apiKey], headers: headers)
            #expect(refused.status == 403 && refused.setCookie == nil)
            #expect(refused.problem == "Sign in on transferd's own sign-in page: this form was sent from another site.")
        }
    }

    @Test(arguments: [[("Sec-Fetch-Site", "same-origin")], [("Sec-Fetch-Site", "none")], []])
    func aSignInFromTheDashboardItselfIsTaken(headers: [(String, String)]) async throws {
        try await TestService.with { api in
            let port = try #require(URLComponents(string: api.baseURL)?.port)
            let browser = DashboardClient(api)
            let signedIn = try await browser.post(
                "/ui/sign-in",
                form: ["key": TestService.apiKey],
                headers: headers + [("Origin", "http://127.0.0.1:\(port)")]
            )
            #expect(signedIn.status == 303 && signedIn.setCookie != nil)
        }
    }

    @Test func theDashboardIsRateLimitedByClientAddress() async throws {
        // The clock stands still: no token comes back however slowly a loaded machine sends the requests.
        let clock = ManualClock()
        try await TestService.with(configure: { ($0.requestsPerSecond, $0.requestBurst, $0.clock) = (0.1, 3, clock) }) { api in
            let browser = DashboardClient(api)
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await browser.post("/ui/sign-in", form: ["key": "wrong"]).status) }

            // verify: the burst, then 429 with when to come back
            #expect(statuses == [401, 401, 401, 429, 429])
            let refused = try await browser.get("/ui/sign-in")
            #expect(refused.status == 429 && refused.headers.first(name: "Retry-After") != nil)
            #expect(refused.text.contains("This address may send 0 requests a second (bursts of 3)"), "\(refused.text)")
        }
    }

    @Test func aKeyKeepsItsTenNewestSessions() async throws {
        // The clock moves a second between sign-ins: which session is oldest never depends on the machine's speed.
        let clock = ManualClock()
        try await TestService.with(configure: { $0.clock = clock }) { api in
            // act: eleven sign-ins with one key
            var browsers: [DashboardClient] = []
            for _ in 0..<11 {
                let browser = DashboardClient(api)
                try await browser.signIn()
                browsers.append(browser)
                clock.advance(by: 1)
            }

            // verify: the first was ended, the ten others go on
            #expect(try await browsers[0].get("/ui/sessions").location == "/ui/sign-in")
            for browser in browsers.dropFirst() { #expect(try await browser.get("/ui/sessions").status == 200) }
        }
    }
}
