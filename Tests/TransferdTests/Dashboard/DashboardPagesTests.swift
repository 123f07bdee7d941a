import Foundation
import Testing
import TransferdTestOrigins

@testable import transferd

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
                // No task is at work: the failed and the suspended one (of unknown sizes) show stopped, empty bars, not
                // the indeterminate (animated) bar of a task at work.
                #expect(!all.text.contains(#"<progress max="1"></progress>"#), "\(all.text)")
                #expect(all.text.components(separatedBy: #"<progress max="1" value=""#).count - 1 == 3)
                #expect(suspended.text.contains("http://127.0.0.1:9/later") && !suspended.text.contains("/files/2048"))
                #expect(suspended.text.contains(#"<a href="/ui/sessions/page?state=suspended" aria-current="page">suspended</a>"#))
                #expect(sessions.text.contains(#"<a href="/ui/sessions/page">page</a>"#), "the sessions page links to it")
            }
        }
    }

    @Test func aTaskPageShowsItsRequestResponseTimelineEventsAndContent() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("detail")
                _ = try await api.createTask(
                    "detail",
                    url: origin.url("/files/3000?name=plain"),
                    extra: #", "headers": {"Authorization": "Bearer secret-value"}"#
                )
                try await api.waitForCompletion("detail", 1)
                _ = try await api.createTask(
                    "detail",
                    url: "http://127.0.0.1:9/later",
                    extra: #", "earliestBeginDate": "2999-01-01T00:00:00Z", "mirrors": ["http://127.0.0.1:9/mirror-a"]"#
                )
                _ = try await api.createTask("detail", url: origin.url("/status/404"))
                try await api.waitForCompletion("detail", 3)
                let browser = DashboardClient(api)
                try await browser.signIn()

                // act
                let page = try await browser.get("/ui/sessions/detail/tasks/1")
                let waiting = try await browser.get("/ui/sessions/detail/tasks/2")
                let failed = try await browser.get("/ui/sessions/detail/tasks/3")
                let content = try await browser.get("/v1/sessions/detail/tasks/1/content")

                // verify: request (header names, never values), response, attempts in words, events, content
                #expect(page.status == 200)
                #expect(page.text.contains("<dd>GET</dd>") && page.text.contains(origin.url("/files/3000?name=plain")))
                #expect(page.text.contains("Authorization") && !page.text.contains("secret-value"))
                #expect(page.text.contains("<dt>Status</dt><dd>200</dd>"))
                #expect(page.text.contains("Attempt 1 succeeded: 3 kB"), "\(page.text)")
                #expect(
                    failed.text.contains("Attempt 1 failed: the server answered with an error (HTTP 404), after 0 bytes"),
                    "\(failed.text)"
                )
                #expect(failed.problem == nil && failed.text.contains("the server answered with an error (HTTP 404): "))
                for type in ["task.created", "task.progress", "task.finished_downloading", "task.completed"] {
                    #expect(page.text.contains("<code>\(type)</code>"), "\(type)")
                }
                let link = try #require(page.contentLink(to: "/v1/sessions/detail/tasks/1/content"), "\(page.text)")
                let linked = try await APIClient(baseURL: api.baseURL, key: nil).send(.GET, link)
                #expect(linked.status == 200 && linked.body.count == 3000, "the content, through the page's signed link")
                #expect(content.status == 401, "the cookie does not open content")
                #expect(waiting.text.contains("Waits for its earliest begin date, 2999-01-01 00:00:00 UTC."), "\(waiting.text)")
                #expect(waiting.text.contains(#"<dt>Mirror</dt><dd class="url">http://127.0.0.1:9/mirror-a</dd>"#), "\(waiting.text)")
                #expect(try await browser.get("/ui/sessions/detail/tasks/7").status == 404)
                #expect(try await browser.get("/ui/sessions/detail/tasks/x").status == 400)
            }
        }
    }

    @Test func backgroundTasksCountDownAndStagedFilesAreListed() async throws {
        // The service's clock stands still: the time remaining is the duration granted, however loaded the machine.
        try await TestService.with(configure: { $0.clock = ManualClock() }) { api in
            try await api.createSession("clock")
            _ = try await api.send(.POST, "/v1/sessions/clock/background-tasks", json: #"{"name": "nightly sync", "duration": 120}"#)
            _ = try await api.stageFile("report.csv", size: 1000)
            let browser = DashboardClient(api)
            try await browser.signIn()

            // act
            let background = try await browser.get("/ui/sessions/clock/background-tasks")
            let files = try await browser.get("/ui/files")
            let listed = try await api.send(.GET, "/v1/files").decode(StagedFilePage.self)

            // verify: the time remaining, for the script to count down; the file and its content link
            #expect(background.text.contains("nightly sync"))
            let remaining = try #require(
                background.text.range(of: #"data-remaining="[0-9]+""#, options: .regularExpression).map {
                    background.text[$0].filter(\.isNumber)
                }
            )
            #expect(remaining == "120")
            #expect(
                files.contentLink(to: "/v1/files/report.csv/content") != nil && files.text.contains(#"<progress max="1" value="1.0">"#),
                "\(files.text)"
            )
            #expect(listed.items.map(\.id) == ["report.csv"], "the API lists the tenant's files too")
        }
    }

    @Test func fetchesShowTheirStateLastResultAndNextRun() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                try await api.createSession("feeds")
                let fetch = try await BackgroundFetchTests.schedule(
                    api,
                    "feeds",
                    url: origin.url("/feed/page"),
                    extra: #", "window": "00:00-23:59""#
                )
                let performed = try await BackgroundFetchTests.performed(api, "feeds", count: 1)[0]
                let browser = DashboardClient(api)
                try await browser.signIn()

                // act
                let page = try await browser.get("/ui/sessions/feeds/fetches")

                // verify: the schedule, its interval and window, its last run linked to the run's task, its next run
                #expect(page.text.contains(#"<tr data-fetch="\#(fetch.id)">"#), "\(page.text)")
                #expect(page.text.contains("/feed/page") && page.text.contains("1 min") && page.text.contains("in 00:00-23:59 UTC"))
                #expect(page.text.contains(#"<a href="/ui/sessions/feeds/tasks/\#(performed.taskIdentifier ?? 0)">newData</a>"#))
                let shown: FetchView = try await api.send(.GET, "/v1/sessions/feeds/fetches/\(fetch.id)").decode()
                #expect(page.text.contains(#"<time datetime="\#(shown.nextRunAt.formatted(.iso8601))">"#), "\(page.text)")
                #expect(page.text.contains(#"aria-current="page">Fetches</a>"#))
            }
        }
    }
}
