import Foundation
import Testing

/// What the dashboard's pages show, read as HTML without JavaScript.
@Suite struct DashboardPagesTests {
    @Test func aSessionsPageListsItsTasksWithProgressAndFiltersByState() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("page")
                _ = try await api.createTask("page", url: origin.url("/files/2048"))
                try await api.waitForCompletion("page", 1)
                _ = try await api.createTask("page", url: "http://127.0.0.1:9/later", extra: #", "start": false"#)
                _ = try await api.createTask("page", url: origin.url("/status/404"))
                try await api.waitForCompletion("page", 3)
                let browser = DashboardClient(api)
                _ = try await browser.post("/ui/sign-in", form: ["key": TestService.apiKey])

                // act
                let all = try await browser.get("/ui/sessions/page")
                let suspended = try await browser.get("/ui/sessions/page?state=suspended")
                let sessions = try await browser.get("/ui/sessions")

                // verify: every task with its state, its progress as a <progress>, its bytes and URL
                #expect(all.status == 200)
                #expect(all.text.contains(#"<progress max="1" value="1.0">100 %</progress>"#), "the finished download")
                #expect(all.text.contains("2 kB of 2 kB"), "\(all.text)")
                #expect(all.text.contains(">suspended<") && all.text.contains("http://127.0.0.1:9/later"))
                #expect(all.text.contains("failed: badServerResponse"))
                #expect(suspended.text.contains("http://127.0.0.1:9/later") && !suspended.text.contains("/files/2048"))
                #expect(suspended.text.contains(#"<a href="/ui/sessions/page?state=suspended" aria-current="page">suspended</a>"#))
                #expect(sessions.text.contains(#"<a href="/ui/sessions/page">page</a>"#), "the sessions page links to it")
            }
        }
    }
}
