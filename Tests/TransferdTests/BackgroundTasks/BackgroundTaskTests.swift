import Foundation
import Testing
import TransferdClient
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// beginBackgroundTask as deadline-scoped groups of transfers: granted time, priority, expiry with resume data,
/// ending early, completion, and deadlines that pass while the service is down.
@Suite struct BackgroundTaskTests {
    private func begin(_ api: APIClient, _ session: String, duration: Double, warning: Double = 5) async throws -> BackgroundTaskView {
        let reply = try await api.send(
            .POST,
            "/v1/sessions/\(session)/background-tasks",
            json: #"{"name": "SubmitOrder", "duration": \#(duration), "expirationWarning": \#(warning)}"#
        )
        #expect(reply.status == 201, "\(reply.text)")
        return try reply.decode()
    }

    private func show(_ api: APIClient, _ session: String, _ id: String) async throws -> BackgroundTaskView {
        try await api.send(.GET, "/v1/sessions/\(session)/background-tasks/\(id)").decode()
    }

    @Test func theGrantedDurationIsCappedAndTheClockRuns() async throws {
        try await TestService.with(configure: { $0.maximumBackgroundTaskDuration = 60 }) { api in
            try await api.createSession("cap")
            let task = try await begin(api, "cap", duration: 600)
            #expect(task.state == "active")
            #expect(task.grantedDuration == 60)
            #expect(task.backgroundTimeRemaining <= 60 && task.backgroundTimeRemaining > 50)
            try await waitUntil { try await show(api, "cap", task.id).backgroundTimeRemaining < task.backgroundTimeRemaining }
            let listed = try await api.send(.GET, "/v1/sessions/cap/background-tasks").decode(
                Operations.ListBackgroundTasks.Output.Ok.Body.JsonPayload.self
            )
            #expect(listed.items.map(\.id) == [task.id])
        }
    }

    @Test func itsTransfersRunAheadOfTheSessionsOthers() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(workerConcurrency: 1) { api in
                try await api.createSession("ahead")
                _ = try await api.createTask("ahead", url: origin.url("/gated/blocker/200000"))
                try await waitUntil { origin.requests.count == 1 }
                let background = try await begin(api, "ahead", duration: 60)
                _ = try await api.createTask("ahead", url: origin.url("/files/10?ordinary"), extra: #", "priority": 1.0"#)
                _ = try await api.createTask(
                    "ahead",
                    url: origin.url("/files/10?bound"),
                    extra: #", "priority": 0.0, "backgroundTask": "\#(background.id)""#
                )

                origin.open(gate: "blocker")
                try await api.waitForCompletion("ahead", 2)
                try await api.waitForCompletion("ahead", 3)
                #expect(Array(origin.requests.dropFirst()) == ["/files/10?bound", "/files/10?ordinary"])
            }
        }
    }

    @Test func atTheDeadlineUnfinishedTransfersAreCancelledWithResumeData() async throws {
        let clock = ManualClock()
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with(
                    dataDirectory: dataDirectory,
                    progressInterval: .milliseconds(50),
                    configure: { $0.clock = clock }
                ) { api in
                    // setup: a throttled download of a background task, with a checkpoint that resume data can keep
                    try await api.createSession("deadline", configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                    let background = try await begin(api, "deadline", duration: 30, warning: 5)
                    let url = origin.url("/files/2000000?name=deadline&faults=0&bytesPerSecond=200000")
                    _ = try await api.createTask("deadline", url: url, extra: #", "backgroundTask": "\#(background.id)""#)
                    try await waitUntil { try await TestDatabase(dataDirectory: dataDirectory).checkpoints()[1, default: 0] > 0 }

                    // act: the expiration handler's moment, then the deadline
                    clock.advance(by: 26)
                    try await api.waitForEvent("deadline") { $0.type == "background_task.expiring" }
                    #expect(try await api.task("deadline", 1).state == "running", "the warning cancels nothing")
                    clock.advance(by: 5)
                    let task = try await api.waitForCompletion("deadline", 1)

                    // verify
                    #expect(task.error?.code == "backgroundTaskExpired")
                    let token = try #require(task.error?.resumeData)
                    let completedAt = try #require(try await api.allEvents("deadline").last { $0.type == "task.completed" }?.createdAt)
                    #expect(completedAt >= background.expiresAt && completedAt.timeIntervalSince(background.expiresAt) < 2)
                    #expect(try await show(api, "deadline", background.id).state == "expired")
                    #expect(try await show(api, "deadline", background.id).backgroundTimeRemaining == 0)

                    let types = try await api.allEvents("deadline").map(\.type).filter { $0.hasPrefix("background_task.") }
                    #expect(types == ["background_task.expiring", "background_task.expired"])
                    try await api.waitUntilAllAcknowledged("deadline")
                    #expect(receiver.acknowledged.map(\.type).filter { $0.hasPrefix("background_task.") } == types)

                    _ = try await api.send(.POST, "/v1/sessions/deadline/tasks", json: #"{"kind": "download", "resumeData": "\#(token)"}"#)
                    #expect(try await api.waitForCompletion("deadline", 2).file?.sha256 == OriginContent.sha256(size: 2_000_000))
                }
            }
        }
    }

    /// The deadline as the real clock keeps it, end to end: expiry comes after it, and without anything else happening
    /// (the clock wakes for it). How close it comes is the manual-clock tests' matter: under a loaded test run the
    /// wake-up itself can be late by a second or more, so the bound here only catches a clock that never wakes.
    @Test func theRealClockExpiresABackgroundTaskOnTime() async throws {
        try await TestService.with { api in
            try await api.createSession("on-time")
            let background = try await begin(api, "on-time", duration: 3, warning: 0)
            _ = try await api.createTask(
                "on-time",
                url: "http://127.0.0.1:9/",
                extra: #", "start": false, "backgroundTask": "\#(background.id)""#
            )
            let task = try await api.waitForCompletion("on-time", 1)
            #expect(task.error?.code == "backgroundTaskExpired")
            let completedAt = try #require(try await api.allEvents("on-time").last { $0.type == "task.completed" }?.createdAt)
            #expect(completedAt >= background.expiresAt && completedAt.timeIntervalSince(background.expiresAt) < 10)
        }
    }

    @Test func endingEarlyKeepsTransfersRunningUnlessAskedToCancel() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("end")
                let kept = try await begin(api, "end", duration: 60)
                let cancelled = try await begin(api, "end", duration: 60)
                _ = try await api.createTask("end", url: origin.url("/gated/kept/200000"), extra: #", "backgroundTask": "\#(kept.id)""#)
                _ = try await api.createTask(
                    "end",
                    url: origin.url("/gated/gone/200000"),
                    extra: #", "backgroundTask": "\#(cancelled.id)""#
                )
                try await waitUntil { origin.requests.count == 2 }

                let ended = try await api.send(.POST, "/v1/sessions/end/background-tasks/\(kept.id)/end").decode(BackgroundTaskView.self)
                #expect(ended.state == "ended")
                _ = try await api.send(.POST, "/v1/sessions/end/background-tasks/\(cancelled.id)/end", json: #"{"cancelTasks": true}"#)
                #expect(try await api.waitForCompletion("end", 2).error?.code == "cancelled")

                let frozen = try await show(api, "end", kept.id).backgroundTimeRemaining
                origin.open(gate: "kept")
                #expect(try await api.waitForCompletion("end", 1).error == nil)
                #expect(try await show(api, "end", kept.id).backgroundTimeRemaining == frozen, "the clock stopped")
                #expect(try await api.send(.POST, "/v1/sessions/end/background-tasks/\(kept.id)/end").status == 409)
            }
        }
    }

    @Test func itCompletesItselfWhenEveryTransferHasCompleted() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("done")
                let background = try await begin(api, "done", duration: 60)
                // created suspended, so that the first cannot complete the background task before the second joins it
                for index in 0..<2 {
                    _ = try await api.createTask(
                        "done",
                        url: origin.url("/files/1000?\(index)"),
                        extra: #", "start": false, "backgroundTask": "\#(background.id)""#
                    )
                }
                for number in 1...2 { _ = try await api.send(.POST, "/v1/sessions/done/tasks/\(number)/resume") }
                let event = try await api.waitForEvent("done") { $0.type == "background_task.completed" }
                #expect(event.data.backgroundTask == background.id)
                let shown = try await show(api, "done", background.id)
                #expect(shown.state == "completed")
                #expect(shown.tasks.map(\.state) == ["completed", "completed"])
            }
        }
    }

    @Test func aDeadlineThatPassesWhileTheServiceIsDownIsKeptAtStartUp() async throws {
        let (dataDirectory, clock) = (DataDirectories.temporary(), ManualClock())
        let background = try await TestService.with(dataDirectory: dataDirectory, configure: { $0.clock = clock }) { api in
            try await api.createSession("down")
            let background = try await begin(api, "down", duration: 3, warning: 0)
            _ = try await api.createTask(
                "down",
                url: "http://127.0.0.1:9/",
                extra: #", "start": false, "backgroundTask": "\#(background.id)""#
            )
            return background
        }
        clock.advance(by: 4)
        try await TestService.with(dataDirectory: dataDirectory, configure: { $0.clock = clock }) { api in
            let task = try await api.waitForCompletion("down", 1)
            #expect(task.error?.code == "backgroundTaskExpired")
            #expect(try await api.allEvents("down").contains { $0.type == "background_task.expired" })
            #expect(try await show(api, "down", background.id).state == "expired")
        }
    }

    @Test func onlyAnActiveBackgroundTaskOfTheSessionTakesTransfers() async throws {
        try await TestService.with { api in
            try await api.createSession("bind")
            try await api.createSession("elsewhere")
            let background = try await begin(api, "elsewhere", duration: 60)
            let reply = try await api.send(
                .POST,
                "/v1/sessions/bind/tasks",
                json: #"{"kind": "download", "url": "http://127.0.0.1:9/", "backgroundTask": "\#(background.id)"}"#
            )
            #expect(reply.status == 409)
            #expect(reply.problem?.detail == "Background task `\(background.id)` is not an active background task of this session.")
            let bad = try await api.send(.POST, "/v1/sessions/bind/background-tasks", json: #"{"name": "x", "duration": 0}"#)
            #expect(bad.problem?.detail == "`duration` is required: a number of seconds greater than 0.")
        }
    }
}
