import Foundation
import Testing
import TransferdTestOrigins

/// The dashboard in a real browser: headless Chromium driven by Selenium (`Tests/Interop/dashboard_browser.py`)
/// against a real service, a real origin and a real webhook receiver. Screenshots of every page, at phone and
/// desktop sizes, go to `$TRANSFERD_SCREENSHOTS` (by default `dashboard-screenshots/` in the temporary directory).
@Suite struct DashboardBrowserTests {
    static let screenshots =
        ProcessInfo.processInfo.environment["TRANSFERD_SCREENSHOTS"] ?? NSTemporaryDirectory() + "dashboard-screenshots"

    /// What the browser saw.
    struct Seen: Decodable {
        var redirectedToSignIn: Bool
        var keyFieldFocused: Bool
        var sessions: [String]
        var sessionTitle: String
        var keyInPage: Bool
        var keyInStorage: Bool
        var cookieVisibleToScripts: Bool
        var afterEnqueue: String
        var progressSeen: [Double]
        var ratesSeen: [String]
        var etasSeen: [String]
        var finalStatus: String
        var finalProgress: Double
        var reloaded: Bool
        var liveStatus: String
        var task1Before: String
        var task1After: String
        var refusedProblem: String
        var taskTitle: String
        var taskTimeline: [String]
        var contentLink: String
        var countdown: [String]
        var failedDeliveries: Int
        var afterReplay: String
        var failedAfterReplay: Int
        var files: [String]
        var keys: Int
        var issuedKey: String
        var keysAfterIssue: Int
        var afterSignOut: String
        var apiAfterSignOut: Int
        var fetchResult: String
        var fetchNextRun: String
        var fetchesAfterForm: Int
    }

    @Test func anOperatorEnqueuesWatchesCancelsReplaysAndSignsOut() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                    // setup: a running download to cancel, a background task, a staged file, and a dead letter
                    try await api.createSession("nightly")
                    _ = try await api.createTask("nightly", url: origin.url("/gated/browser/5000000"))
                    try await waitUntil { try await api.task("nightly", 1).countOfBytesReceived > 0 }
                    _ = try await api.send(.POST, "/v1/sessions/nightly/background-tasks", json: #"{"name": "sync", "duration": 120}"#)
                    _ = try await api.stageFile("report.csv", size: 2048)
                    try await api.deadLetterTestEvents("hooked", to: receiver)
                    receiver.refuse(with: nil)
                    let enqueue = origin.url("/files/3000000?name=watched&bytesPerSecond=500000")
                    try await api.createSession("feeds")
                    let fetch = try await BackgroundFetchTests.schedule(api, "feeds", url: origin.url("/feed/browser"), interval: 86_400)
                    let scenario =
                        #"{"session": "nightly", "hooked": "hooked", "fetching": "feeds", "enqueue": "\#(enqueue)", "schedule": "\#(origin.url("/feed/typed"))"}"#

                    // act
                    let script = try InteropScript(
                        "dashboard_browser.py",
                        arguments: [api.baseURL, TestService.apiKey, Self.screenshots, scenario]
                    )
                    let output = try await script.result(timeout: .seconds(240))
                    let seen = try JSONDecoder().decode(Seen.self, from: Data((output.split(separator: "\n").last ?? "").utf8))
                    origin.open(gate: "browser")

                    // verify: 1. signed in, with the key nowhere a script could read it
                    #expect(seen.redirectedToSignIn && seen.keyFieldFocused)
                    #expect(seen.sessions == ["nightly", "hooked", "feeds"])
                    #expect(seen.sessionTitle == "nightly")
                    #expect(!seen.keyInPage && !seen.keyInStorage && !seen.cookieVisibleToScripts)
                    // 2. and 3. enqueued through the form; the bar moved and completed without a reload
                    #expect(seen.afterEnqueue == api.baseURL + "/ui/sessions/nightly")
                    let task = try await api.task("nightly", 2)
                    #expect(task.originalRequest.url == enqueue && task.state == "completed" && task.error == nil)
                    #expect(seen.progressSeen.filter { $0 > 0 && $0 < 1 }.count >= 2, "the bar moved: \(seen.progressSeen)")
                    #expect(seen.finalStatus == "completed" && seen.finalProgress == 1)
                    #expect(!seen.reloaded && seen.liveStatus == "Live")
                    #expect(seen.ratesSeen.contains { $0.hasSuffix("/s") }, "\(seen.ratesSeen)")
                    #expect(!seen.etasSeen.isEmpty, "an ETA was shown")
                    // 4. the running task was cancelled
                    #expect(seen.task1Before == "running")
                    #expect(seen.task1After.contains("cancel"), "\(seen.task1After)")
                    #expect(try await api.task("nightly", 1).error?.code == "cancelled")
                    // a refusal shows the API problem's detail
                    let direct = try await api.send(
                        .POST,
                        "/v1/sessions/nightly/tasks",
                        json: #"{"kind": "download", "url": "ftp://example.com/file"}"#
                    )
                    #expect(seen.refusedProblem == direct.problem?.detail)
                    // the task page, the background task's countdown, the files and the keys
                    #expect(seen.taskTitle == "Task 2")
                    #expect(seen.taskTimeline.contains { $0.contains("Attempt 1 succeeded") }, "\(seen.taskTimeline)")
                    #expect(seen.contentLink.hasPrefix(api.baseURL + "/v1/sessions/nightly/tasks/2/content?expires="), "a signed link")
                    #expect(seen.countdown.count == 2 && seen.countdown[0] != seen.countdown[1], "\(seen.countdown)")
                    #expect(seen.fetchResult == "newData")
                    let scheduled: FetchView = try await api.send(.GET, "/v1/sessions/feeds/fetches/\(fetch.id)").decode()
                    // The page shows the next run to the second.
                    #expect(abs(try Date(seen.fetchNextRun, strategy: .iso8601).timeIntervalSince(scheduled.nextRunAt)) < 1)
                    let typed: FetchListView = try await api.send(.GET, "/v1/sessions/feeds/fetches").decode()
                    #expect(seen.fetchesAfterForm == 2 && typed.items.contains { $0.url.hasSuffix("/feed/typed") && $0.interval == 3600 })
                    #expect(seen.files.first?.hasPrefix("report.csv") == true && seen.keys >= 1)
                    #expect(seen.keysAfterIssue == seen.keys + 1 && seen.issuedKey.hasPrefix("trd_"))
                    var issued = api
                    issued.key = seen.issuedKey
                    #expect(try await issued.send(.GET, "/v1/sessions").status == 200, "the key shown once works")
                    // 5. the dead letter was replayed and delivered
                    #expect(seen.failedDeliveries == 1 && seen.failedAfterReplay == 0)
                    #expect(seen.afterReplay == api.baseURL + "/ui/sessions/hooked/deliveries?status=failed")
                    try await api.waitUntilAllAcknowledged("hooked")
                    #expect(receiver.acknowledged.count == 1)
                    // 6. signed out, the data pages refuse
                    #expect(seen.afterSignOut == api.baseURL + "/ui/sign-in", "signed out, a data page sends back to sign in")
                    #expect(seen.apiAfterSignOut == 401)
                }
            }
        }
    }
}
