import Foundation
import Testing
import TransferdTestOrigins

/// One tenant cannot starve or stall another's work on the same instance (the real binary, two real tenants).
@Suite struct NoisyNeighbourTests {
    /// Tenant t1's subscriber answers 200 and never finishes its body, on every sender there is
    /// (`--webhook-concurrency 1`). Tenant t2's delivery goes out once the deadline cuts it, not after t1's subscriber
    /// gives up (before: never, while it trickled).
    @Test func aTarpitSubscriberDelaysAnotherTenantsDeliveriesByTheDeadlineAtMost() async throws {
        try await TarpitSubscriber.with { tarpit in
            try await WebhookReceiver.with { receiver in
                let (service, t2) = try await Self.serviceWithTwoTenants(["--webhook-concurrency", "1", "--webhook-timeout", "2"])
                defer { service.stopIfRunning() }

                // setup: t1's session's first delivery held by the tarpit, on the only sender (with two senders and two
                // held sessions, a loaded machine created the second more than the deadline after the first, and the
                // tarpit never held both at once)
                try await service.api.createSession("held", configuration: #"{"webhook": {"url": "\#(tarpit.url)"}}"#)
                _ = try await service.api.createTask("held", url: "http://127.0.0.1:9/", extra: #", "start": false"#)
                try await waitUntil(timeout: .seconds(30)) { tarpit.holding == 1 }

                // act: t2's event
                let written = ContinuousClock.now
                try await t2.createSession("other", configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                _ = try await t2.createTask("other", url: "http://127.0.0.1:9/", extra: #", "start": false"#)

                // verify: delivered once the two-second deadline freed a sender, which went to t2 before t1's retries
                try await waitUntil(timeout: .seconds(60)) { receiver.received.contains { $0.session == "other" } }
                let waited = ContinuousClock.now - written
                #expect(waited < .seconds(10), "t2 waited \(waited) behind t1's tarpit")
                // and the exchange was ended, its connection closed: the tarpit's next write fails
                try await waitUntil(timeout: .seconds(10)) { tarpit.cut >= 1 }
            }
        }
    }

    /// Tenant t1's two downloads from an origin that never answers hold both workers (`--worker-concurrency 2`, and
    /// t1's sessions wait a day for a byte). Tenant t2's download starts at once: one of t1's transfers gives its
    /// worker back (preempted, its task queued again), and t1 gets it again afterwards (before: t2 waited until t1's
    /// transfers were cancelled, minutes later).
    @Test func stuckTransfersOfOneTenantDoNotHoldBackAnothers() async throws {
        try await OriginServer.with { origin in
            let (service, t2) = try await Self.serviceWithTwoTenants(["--worker-concurrency", "2"])
            defer { service.stopIfRunning() }

            // setup: both workers held by t1
            try await service.api.createSession("stuck", configuration: #"{"timeoutIntervalForRequest": 86400}"#)
            for index in 1...2 {
                _ = try await service.api.createTask("stuck", url: origin.url("/files/1000?name=stuck\(index)&hold=never"))
            }
            let arrivals = { origin.arrivals("stuck1").count + origin.arrivals("stuck2").count }
            try await waitUntil(timeout: .seconds(30)) { arrivals() == 2 }

            // act
            try await t2.createSession("other")
            let created = try await t2.createTask("other", url: origin.url("/files/1000?name=other"))

            // verify: t2's download started and finished while t1's origin still held its requests
            let task = try await t2.waitForCompletion("other", created.taskIdentifier, timeout: .seconds(30))
            #expect(task.file?.sha256 == OriginContent.sha256(size: 1000))
            let waited = try #require(task.startedAt).timeIntervalSince(task.createdAt)
            #expect(waited < 5, "t2's task waited \(waited) s for a worker")
            let stuck = try await service.api.tasks("stuck")
            #expect(stuck.allSatisfy { $0.state == "running" && $0.error == nil }, "the preempted task is queued again, not failed")
            try await waitUntil(timeout: .seconds(30)) { arrivals() == 3 }
        }
    }

    /// A tenant's work held back by its own session's per-host limit takes no worker back: t2's second and third
    /// tasks wait for their host, not for a worker, so t1 keeps the workers it was left (before the fix, t1's
    /// transfers were preempted and restarted at every look, four times a second).
    @Test func workHeldByItsOwnHostLimitTakesNoWorkerBack() async throws {
        try await OriginServer.with { origin in
            let (service, t2) = try await Self.serviceWithTwoTenants(["--worker-concurrency", "4"])
            defer { service.stopIfRunning() }
            let t1Arrivals = { (1...4).reduce(0) { $0 + origin.arrivals("t1-\($1)").count } }
            try await service.api.createSession("busy", configuration: #"{"timeoutIntervalForRequest": 86400}"#)
            for index in 1...4 { _ = try await service.api.createTask("busy", url: origin.url("/files/1000?name=t1-\(index)&hold=never")) }
            try await waitUntil(timeout: .seconds(30)) { t1Arrivals() == 4 }

            // act: t2's three tasks, one at a time to their host
            try await t2.createSession("capped", configuration: #"{"timeoutIntervalForRequest": 86400, "maximumConnectionsPerHost": 1}"#)
            for index in 1...3 { _ = try await t2.createTask("capped", url: origin.url("/files/1000?name=t2-\(index)&hold=never")) }

            // verify: one of t1's transfers gave its worker to t2's first task (its task queued again), and at eight
            // looks at the queue, each at another task of t2's held by its host limit, none was started again to be
            // preempted again
            try await waitUntil(timeout: .seconds(30)) { origin.arrivals("t2-1").count == 1 }
            for index in 4...11 {
                try await service.api.afterSchedulerLooks {
                    _ = try await t2.createTask("capped", url: origin.url("/files/1000?name=t2-\(index)&hold=never"))
                }
            }
            #expect(t1Arrivals() == 4, "t1's transfers were preempted again for work that cannot start")
            #expect((2...11).allSatisfy { origin.arrivals("t2-\($0)").isEmpty })
        }
    }

    /// A session may ask to wait a day for a byte, but the service cuts it to `--max-request-timeout`; and a transfer
    /// that trickles stays below `--min-transfer-rate`: either gives its worker back, failed as `timedOut` and retried.
    @Test(arguments: [
        (["--max-request-timeout", "1"], "/gated/slow/300000", "timedOut"),
        (["--min-transfer-rate", "1000000", "--stall-timeout", "1"], "/files/300000?name=slow&faults=0&bytesPerSecond=100000", "timedOut"),
    ])
    func aWorkerIsNotHeldByATransferThatHardlyMoves(arguments: [String], path: String, outcome: String) async throws {
        try await OriginServer.with { origin in
            let service = try await ServiceProcess.start(dataDirectory: DataDirectories.temporary(), arguments: arguments)
            defer { service.stopIfRunning() }
            try await service.api.createSession("slow", configuration: #"{"timeoutIntervalForRequest": 86400}"#)
            _ = try await service.api.createTask("slow", url: origin.url(path))

            try await waitUntil(timeout: .seconds(30)) { try await service.api.task("slow", 1).attempts.contains { $0.outcome == outcome } }
            #expect(try await service.api.task("slow", 1).state == "running", "retried later, not failed for good")
        }
    }

    /// The real binary on a data directory of its own, started with `arguments`, and a client of a second tenant,
    /// t2 (the service's own key is tenant t1's).
    private static func serviceWithTwoTenants(_ arguments: [String]) async throws -> (ServiceProcess, APIClient) {
        let (service, t2, _) = try await TwoTenants.start(arguments)
        return (service, t2)
    }
}
