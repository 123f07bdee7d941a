import Foundation
import Testing

/// The dashboard in a real browser: headless Chromium driven by Selenium (`Tests/Interop/dashboard_browser.py`)
/// against a real service. Screenshots of every page, at phone and desktop sizes, go to
/// `$TRANSFERD_SCREENSHOTS` (by default `dashboard-screenshots/` in the temporary directory).
@Suite struct DashboardBrowserTests {
    static let screenshots =
        ProcessInfo.processInfo.environment["TRANSFERD_SCREENSHOTS"] ?? NSTemporaryDirectory() + "dashboard-screenshots"

    /// What the browser saw.
    struct Seen: Decodable {
        var redirectedToSignIn: Bool
        var keyFieldFocused: Bool
        var sessions: [String]
        var sessionTitle: String
        var tasks: [String]
        var keyInPage: Bool
        var keyInStorage: Bool
        var cookieVisibleToScripts: Bool
        var afterSignOut: String
        var apiAfterSignOut: Int
    }

    @Test func signInSeeTheSessionsSignOutAndTheDataPagesRefuse() async throws {
        try await TestService.with { api in
            for name in ["nightly", "uploads"] { try await api.createSession(name) }
            _ = try await api.createTask("nightly", url: "http://127.0.0.1:9/image.iso", extra: #", "start": false"#)

            let script = try InteropScript("dashboard_browser.py", arguments: [api.baseURL, TestService.apiKey, Self.screenshots])
            let output = try await script.result()
            let seen = try JSONDecoder().decode(Seen.self, from: Data((output.split(separator: "\n").last ?? "").utf8))

            #expect(seen.redirectedToSignIn && seen.keyFieldFocused)
            #expect(seen.sessions == ["nightly", "uploads"])
            #expect(seen.sessionTitle == "nightly")
            #expect(seen.tasks.count == 1 && seen.tasks.first?.contains("suspended") == true, "\(seen.tasks)")
            #expect(!seen.keyInPage && !seen.keyInStorage && !seen.cookieVisibleToScripts)
            #expect(seen.afterSignOut == api.baseURL + "/ui/sign-in", "signed out, a data page sends back to sign in")
            #expect(seen.apiAfterSignOut == 401)
        }
    }
}
