import Foundation
import Testing
import TransferdTestOrigins

/// Every client transition of a task through the real API, with the events each one writes.
@Suite struct TaskLifecycleTests {
    @Test func aTaskCreatedSuspendedRunsWhenResumedAndReportsEveryCallback() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // setup
                try await api.createSession("lifecycle")
                let created = try await api.createTask("lifecycle", url: origin.url("/files/300000"), extra: #", "start": false"#)
                #expect(created.state == "suspended")
                #expect(created.taskIdentifier == 1)

                // act
                let resumed = try await api.send(.POST, "/v1/sessions/lifecycle/tasks/1/resume")
                #expect(resumed.status == 200)
                let task = try await api.waitForCompletion("lifecycle", 1)
                try await api.waitForEvent("lifecycle") { $0.type == "session.events_finished" }

                // verify
                #expect(task.state == "completed")
                #expect(task.error == nil)
                #expect(
                    task.file == FileView(size: 300000, sha256: OriginContent.sha256(size: 300000), contentType: "application/octet-stream")
                )
                #expect(task.countOfBytesReceived == 300000)
                #expect(task.countOfBytesExpectedToReceive == 300000)
                #expect(task.progress.fractionCompleted == 1)
                let types = try await api.events("lifecycle").items.map(\.type).filter { $0 != "task.progress" }
                #expect(
                    types == ["task.created", "task.resumed", "task.finished_downloading", "task.completed", "session.events_finished"]
                )
                let events = try await api.events("lifecycle").items
                #expect(events.map(\.sequence) == Array(1...events.count))
                let finalProgress = try #require(events.last { $0.type == "task.progress" })
                #expect(finalProgress.data.totalBytesWritten == 300000)
                #expect(finalProgress.data.totalBytesExpectedToWrite == 300000)
                let completion = try #require(events.first { $0.type == "task.completed" })
                #expect(completion.data.error == nil)
            }
        }
    }

    @Test func suspendingARunningDownloadStopsItAndResumingFinishesIt() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // setup: a download held by the origin after its first chunk
                try await api.createSession("suspend")
                _ = try await api.createTask("suspend", url: origin.url("/gated/g/1000000"))
                try await waitUntil { try await api.task("suspend", 1).countOfBytesReceived >= OriginServer.chunkSize }

                // act
                let suspended = try await api.send(.POST, "/v1/sessions/suspend/tasks/1/suspend")
                #expect(suspended.status == 200)
                #expect(try suspended.decode(TaskView.self).state == "suspended")
                try await api.waitForEvent("suspend") { $0.type == "task.suspended" }
                origin.open(gate: "g")
                let again = try await api.send(.POST, "/v1/sessions/suspend/tasks/1/suspend")
                #expect(again.status == 200, "suspending a suspended task changes nothing")
                _ = try await api.send(.POST, "/v1/sessions/suspend/tasks/1/resume")
                let task = try await api.waitForCompletion("suspend", 1)

                // verify
                #expect(task.file?.sha256 == OriginContent.sha256(size: 1000000))
                let types = try await api.events("suspend").items.map(\.type).filter { $0 != "task.progress" }
                #expect(
                    types == [
                        "task.created", "task.resumed", "task.suspended", "session.events_finished", "task.resumed",
                        "task.finished_downloading", "task.completed", "session.events_finished",
                    ]
                )
            }
        }
    }

    @Test func cancellingARunningDownloadCompletesItWithCancelledAndKeepsNoFile() async throws {
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await api.createSession("cancel")
                _ = try await api.createTask("cancel", url: origin.url("/gated/never/1000000"))
                try await waitUntil { try await api.task("cancel", 1).countOfBytesReceived >= OriginServer.chunkSize }

                let reply = try await api.send(.POST, "/v1/sessions/cancel/tasks/1/cancel")
                #expect(reply.status == 200)
                #expect(["canceling", "completed"].contains(try reply.decode(TaskView.self).state))
                let task = try await api.waitForCompletion("cancel", 1)

                #expect(task.state == "completed")
                #expect(task.error?.code == "cancelled")
                #expect(task.file == nil)
                let content = try await api.send(.GET, "/v1/sessions/cancel/tasks/1/content")
                #expect(content.status == 404)
                #expect(content.problem?.detail.contains("cancelled") == true)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/tasks")
                #expect(leftovers.isEmpty, "a cancelled download leaves no partial file")
            }
        }
    }

    @Test func cancellingASuspendedTaskCompletesItAtOnce() async throws {
        try await TestService.with { api in
            try await api.createSession("cancel-suspended")
            _ = try await api.createTask("cancel-suspended", url: "http://127.0.0.1:9/never", extra: #", "start": false"#)
            let reply = try await api.send(.POST, "/v1/sessions/cancel-suspended/tasks/1/cancel")
            let task = try reply.decode(TaskView.self)
            #expect(task.state == "completed")
            #expect(task.error?.code == "cancelled")
            let types = try await api.events("cancel-suspended").items.map(\.type)
            #expect(types == ["task.created", "task.completed"])
        }
    }

    @Test(arguments: ["resume", "suspend", "cancel"])
    func aCompletedTaskRefusesEveryTransitionWith409(transition: String) async throws {
        try await TestService.with { api in
            try await api.createSession("done")
            _ = try await api.createTask("done", url: "http://127.0.0.1:9/never", extra: #", "start": false"#)
            _ = try await api.send(.POST, "/v1/sessions/done/tasks/1/cancel")

            let reply = try await api.send(.POST, "/v1/sessions/done/tasks/1/\(transition)")

            #expect(reply.status == 409)
            #expect(reply.headers.first(name: "content-type") == "application/problem+json")
            #expect(reply.problem?.detail == "Task 1 is completed; it cannot \(transition).")
        }
    }
}
