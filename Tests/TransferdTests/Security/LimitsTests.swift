import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Quotas per tenant, session and task, the size cap of downloads and the free-disk floor: each refuses with a
/// precise problem, and none loses what exists.
@Suite struct LimitsTests {
    @Test func sessionsTasksAndQueuedWorkAreCapped() async throws {
        let limits = ResourceLimits(
            maximumSessionsPerTenant: 2,
            maximumTasksPerSession: 2,
            maximumQueuedTasksPerTenant: 3,
            minimumFreeDiskBytes: 0
        )
        try await TestService.with(configure: { $0.limits = limits }) { api in
            try await api.createSession("one")
            try await api.createSession("two")
            let third = try await api.send(.PUT, "/v1/sessions/three", json: "{}")
            #expect(third.status == 429)
            #expect(third.problem?.detail == "This tenant's quota of sessions is 2 and it has 2 live; invalidate one first.")
            #expect(try await api.send(.PUT, "/v1/sessions/one", json: "{}").status == 200, "reconnecting is not creating")

            let waiting = #", "start": false"#
            for _ in 0..<2 { _ = try await api.createTask("one", url: "http://127.0.0.1:9/", extra: waiting) }
            let full = try await api.send(.POST, "/v1/sessions/one/tasks", json: #"{"kind": "download", "url": "http://127.0.0.1:9/"}"#)
            #expect(full.problem?.detail == "Session `one` has 2 tasks, the most a session may have.")
            _ = try await api.createTask("two", url: "http://127.0.0.1:9/", extra: waiting)
            let queued = try await api.send(.POST, "/v1/sessions/two/tasks", json: #"{"kind": "download", "url": "http://127.0.0.1:9/"}"#)
            #expect(queued.status == 429)
            #expect(
                queued.problem?.detail
                    == "This tenant's quota of queued tasks is 3; it has 3 unfinished and the request adds 1. Wait for some to complete."
            )
        }
    }

    @Test(arguments: ["", "&noLength=1"])
    func aDownloadLargerThanItsCapFailsAsSoonAsItIsKnown(lengthOption: String) async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("capped")
                _ = try await api.createTask(
                    "capped",
                    url: origin.url("/files/300000?name=capped\(lengthOption)"),
                    extra: #", "maxBytes": 100000"#
                )
                let task = try await api.waitForCompletion("capped", 1)

                #expect(task.error?.code == "fileTooLarge")
                #expect(task.file == nil)
                #expect(task.attempts.count == 1, "not retried")
            }
        }
    }

    @Test func theServicesCapBoundsEveryDownload() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.limits.maximumDownloadBytes = 1000 }) { api in
                try await api.createSession("global")
                _ = try await api.createTask("global", url: origin.url("/files/5000"), extra: #", "maxBytes": 1000000"#)
                #expect(try await api.waitForCompletion("global", 1).error?.code == "fileTooLarge")
            }
        }
    }

    @Test func belowTheDiskFloorNewWorkIsRefusedWith507() async throws {
        try await TestService.with(configure: { $0.limits.minimumFreeDiskBytes = .max / 2 }) { api in
            try await api.createSession("full")
            let task = try await api.send(.POST, "/v1/sessions/full/tasks", json: #"{"kind": "download", "url": "http://127.0.0.1:9/"}"#)
            #expect(task.status == 507)
            #expect(task.problem?.type == "urn:transferd:problem:insufficient-storage")
            #expect(try await api.send(.PUT, "/v1/files/a", bytes: OriginContent.buffer(0..<10)).status == 507)
            #expect(try await api.send(.POST, "/v1/files", headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "10")]).status == 507)
        }
    }

    @Test func belowTheDiskFloorATransferWaitsInsteadOfFillingTheDisk() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            try await api.createSession("paused")
            _ = try await api.createTask("paused", url: "http://127.0.0.1:9/", extra: #", "start": false"#)
        }
        try await TestService.with(dataDirectory: dataDirectory, configure: { $0.limits.minimumFreeDiskBytes = .max / 2 }) { api in
            _ = try await api.send(.POST, "/v1/sessions/paused/tasks/1/resume")
            try await waitUntil { try await api.task("paused", 1).waitingReason == "insufficientStorage" }
            let task = try await api.task("paused", 1)
            #expect(task.state == "running")
            #expect(task.attempts.first?.outcome == "outOfSpace")
        }
    }

    @Test func oversizedRequestHeadersAreRefused() async throws {
        try await TestService.with { api in
            let reply = try await api.send(.GET, "/v1/sessions", headers: [("X-Padding", String(repeating: "a", count: 100_000))])
            #expect(reply.status == 400, "the HTTP parser takes at most 80 KiB of headers")
            #expect(try await api.send(.GET, "/v1/sessions").status == 200, "and the service goes on")
        }
    }

    @Test func clientChosenNamesNeverReachTheFileSystem() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            #expect(try await api.send(.PUT, "/v1/files/..%2F..%2Fescape", bytes: OriginContent.buffer(0..<10)).status == 400)
            #expect(try await api.send(.PUT, "/v1/sessions/..%2Fescape", json: "{}").status == 400)
            #expect(try await api.send(.PUT, "/v1/files/..evil", bytes: OriginContent.buffer(0..<10)).status == 201)
            let stored = try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/files")
            #expect(stored.allSatisfy { $0.allSatisfy(\.isNumber) }, "\(stored)")
            #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/../escape"))
        }
    }
}
