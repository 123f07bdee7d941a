import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// What lives in the database holds across instances sharing it: a background task's deadline is applied once
/// whichever instance sees it pass, content expires once however many instances sweep, an idempotency key creates
/// once, a session's quota is not exceeded, a task held back by another instance's transfer says so, and a revoked
/// API key stops working on every instance. Only with
/// `TRANSFERD_TEST_DATABASE_URL`.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct AcrossInstancesTests {
    /// Two instances over one database and data directory; stopped when `body` returns.
    private func withTwoInstances(_ body: (String, [APIClient]) async throws -> Void) async throws {
        let dataDirectory = DataDirectories.temporary()
        var instances: [ServiceProcess] = []
        defer { for instance in instances { instance.stopIfRunning() } }
        for id in ["a1", "a2"] {
            instances.append(try await ServiceProcess.start(dataDirectory: dataDirectory, instance: (id, 5)))
        }
        try await body(dataDirectory, instances.map(\.api))
        for instance in instances { try await instance.terminate() }
    }

    @Test func aBackgroundTasksDeadlineIsAppliedOnceWhicheverInstanceSeesIt() async throws {
        try await OriginServer.with { origin in
            try await withTwoInstances { _, apis in
                // setup: a background task begun through one instance, its transfer created through the other
                try await apis[0].createSession("deadline")
                let begun = try await apis[0].send(
                    .POST,
                    "/v1/sessions/deadline/background-tasks",
                    json: #"{"name": "Nightly", "duration": 4, "expirationWarning": 2}"#
                )
                let background = try begun.decode(BackgroundTaskView.self)
                let url = origin.url("/files/2000000?name=deadline&faults=0&bytesPerSecond=100000")
                _ = try await apis[1].createTask("deadline", url: url, extra: #", "backgroundTask": "\#(background.id)""#)

                // act: the deadline passes while both instances watch it
                let task = try await apis[1].waitForCompletion("deadline", 1)

                // verify: one warning, one expiry, one cancellation
                #expect(task.error?.code == "backgroundTaskExpired")
                let log = try await apis[0].allEvents("deadline")
                #expect(
                    log.map(\.type).filter { $0.hasPrefix("background_task.") } == ["background_task.expiring", "background_task.expired"]
                )
                #expect(log.count { $0.type == "task.completed" } == 1)
                #expect(log.map(\.sequence) == Array(1...log.count))
            }
        }
    }

    @Test func aRevokedKeyStopsWorkingOnEveryInstance() async throws {
        try await withTwoInstances { dataDirectory, apis in
            let token = try await KeyManagement.create(dataDirectory: dataDirectory, name: "shared", tenant: "default", admin: false)
            let clients = apis.map { APIClient(baseURL: $0.baseURL, key: token) }
            for client in clients { #expect(try await client.send(.GET, "/v1/sessions").status == 200) }

            // act: revoked from the command line, as an operator would
            #expect(try await KeyManagement.revoke(dataDirectory: dataDirectory, id: String(token.split(separator: "_")[1])))

            // verify: refused by each instance, though each had it cached
            for client in clients {
                try await waitUntil(timeout: .seconds(10)) { try await client.send(.GET, "/v1/sessions").status == 401 }
            }
        }
    }

    /// Two instances of this process over one database and data directory, each configured by `configure` too.
    private func withTwoServices(
        configure: @escaping (inout Configuration) -> Void = { _ in },
        _ body: (String, [APIClient]) async throws -> Void
    ) async throws {
        let dataDirectory = DataDirectories.temporary()
        func instance(_ id: String) -> (inout Configuration) -> Void {
            { configuration in
                configuration.instance = Instance(id: id, leaseTimeout: 15)
                configure(&configuration)
            }
        }
        try await TestService.with(dataDirectory: dataDirectory, configure: instance("p1")) { first in
            try await TestService.with(dataDirectory: dataDirectory, configure: instance("p2")) { second in
                try await body(dataDirectory, [first, second])
            }
        }
    }

    @Test func contentExpiresOnceHoweverManyInstancesSweep() async throws {
        let clock = ManualClock()
        let sweeping: (inout Configuration) -> Void = { configuration in
            configuration.clock = clock
            configuration.sweepInterval = .milliseconds(20)
        }
        try await OriginServer.with { origin in
            try await withTwoServices(configure: sweeping) { dataDirectory, apis in
                // setup: finished downloads of a session that keeps content for two minutes
                try await apis[0].createSession("brief", configuration: #"{"retentionPeriod": 120}"#)
                for number in 1...10 {
                    _ = try await apis[number % 2].createTask("brief", url: origin.url("/files/5000?name=\(number)"))
                }
                for number in 1...10 { try await apis[0].waitForCompletion("brief", number) }

                // act: the period passes while both instances sweep every 20 ms
                clock.advance(by: 121)
                try await waitUntil { try await apis[1].tasks("brief").allSatisfy { $0.file == nil } }

                // verify: one task.content_expired per task, in a gap-free log, and the files gone
                let log = try await apis[0].allEvents("brief")
                #expect(log.filter { $0.type == "task.content_expired" }.compactMap(\.taskIdentifier).sorted() == Array(1...10))
                #expect(log.map(\.sequence) == Array(1...log.count))
                let left = try FileManager.default.contentsOfDirectory(atPath: "\(dataDirectory)/tasks")
                #expect(left.isEmpty, "\(left)")
                #expect(try await apis[1].session("brief").storedBytes == 0)
            }
        }
    }

    @Test func anIdempotencyKeySentToBothInstancesAtOnceCreatesOnce() async throws {
        try await withTwoServices { _, apis in
            try await apis[0].createSession("keyed")
            let body = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#

            // act: each key sent through both instances at the same moment
            var replies: [[APIClient.Reply]] = []
            for number in 1...10 {
                let headers = [("Idempotency-Key", "order-\(number)")]
                async let first = apis[0].send(.POST, "/v1/sessions/keyed/tasks", json: body, headers: headers)
                async let second = apis[1].send(.POST, "/v1/sessions/keyed/tasks", json: body, headers: headers)
                replies.append(try await [first, second])
            }

            // verify: one task per key; the other request replayed it, or was told the first is still under way
            #expect(try await apis[1].tasks("keyed").count == 10)
            for (index, pair) in replies.enumerated() {
                let statuses = pair.map(\.status)
                #expect(statuses.contains(201) && statuses.allSatisfy { [201, 409].contains($0) }, "key \(index + 1): \(statuses)")
                if statuses == [201, 201] { #expect(pair[0].body == pair[1].body, "key \(index + 1): a replay") }
                let retry = try await apis[index % 2].send(
                    .POST,
                    "/v1/sessions/keyed/tasks",
                    json: body,
                    headers: [("Idempotency-Key", "order-\(index + 1)")]
                )
                #expect(retry.body == pair.first { $0.status == 201 }?.body, "key \(index + 1): replayed by either instance")
            }
        }
    }

    @Test func aSessionsTaskQuotaHoldsAcrossInstances() async throws {
        try await withTwoServices(configure: { $0.limits.maximumTasksPerSession = 5 }) { _, apis in
            try await apis[0].createSession("quota")
            let body = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#

            // act: twelve creations at once, half through each instance
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 0..<12 {
                    group.addTask { try await apis[number % 2].send(.POST, "/v1/sessions/quota/tasks", json: body).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            // verify: five created, the others refused as a client's excess, not a failure
            #expect(statuses.count { $0 == 201 } == 5, "\(statuses)")
            #expect(statuses.allSatisfy { $0 == 201 || (400..<500).contains($0) }, "\(statuses)")
            #expect(try await apis[0].tasks("quota").count == 5)
        }
    }

    @Test func aTaskHeldBackByAnotherInstancesTransferSaysSoOnEvery() async throws {
        try await OriginServer.with { origin in
            try await withTwoServices { _, apis in
                try await apis[0].createSession("one-per-host", configuration: #"{"maximumConnectionsPerHost": 1}"#)
                _ = try await apis[0].createTask("one-per-host", url: origin.url("/gated/first/200000"))
                try await waitUntil { origin.requests.count == 1 }

                // act: a second task to the same host, while one instance or the other transfers the first
                _ = try await apis[1].createTask("one-per-host", url: origin.url("/gated/second/200000"))

                // verify: whichever instance is asked, the second waits for the host
                for api in apis {
                    try await waitUntil { try await api.task("one-per-host", 2).waitingReason == "hostLimit" }
                }
                #expect(origin.requests.count == 1)
                origin.open(gate: "first")
                origin.open(gate: "second")
                #expect(try await apis[0].waitForCompletion("one-per-host", 2).error == nil)
            }
        }
    }
}
