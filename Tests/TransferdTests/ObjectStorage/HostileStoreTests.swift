import Foundation
import Testing
import TransferdTestOrigins

/// One tenant's store accepts parts, refuses every completion (403) and never answers an abort (the attack of issue
/// 63, item 3), against the real binary: another tenant's content still expires within two sweep intervals while
/// the aborts hang, and SIGTERM ends the service within `--shutdown-grace` with that store, an origin and a webhook
/// subscriber all stuck at once.
@Suite struct HostileStoreTests {
    static let sweepInterval = 2.0
    static let grace = 8.0

    @Test func aStoreThatNeverAnswersHoldsUpNeitherTheSweepNorTheShutdown() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await server.injectFaults(1000, bucket: bucket, matching: "DELETE", answer: .hang)
        try await server.injectFaults(1000, bucket: bucket, matching: "?uploadId=", answer: .accessDenied)
        try await OriginServer.with { origin in
            try await TarpitSubscriber.with { subscriber in
                let (service, t2, _) = try await TwoTenants.start([
                    "--sweep-interval", "\(Self.sweepInterval)", "--shutdown-grace", "\(Self.grace)",
                ])
                defer { service.stopIfRunning() }

                // setup: t2's downloads into its store end without their objects, and the aborts of their uploads hang
                #expect(
                    try await t2.send(.PUT, "/v1/storage/archive", json: ObjectDownloadTests.storage(server, bucket: bucket)).status == 201
                )
                try await t2.createSession("hostile")
                for number in 1...3 {
                    _ = try await t2.createTask(
                        "hostile",
                        url: origin.url("/files/10000000?name=h\(number)"),
                        extra: ObjectDownloadTests.destination("h\(number).bin")
                    )
                }
                for number in 1...3 { #expect(try await t2.waitForCompletion("hostile", number).error?.code == "objectStorageRefused") }
                try await waitUntil(timeout: .seconds(30)) {
                    try await server.received(bucket: bucket).contains { $0.method == "DELETE" }
                }

                // act: the other tenant's content, kept for a second
                let api = service.api
                try await api.createSession("kept", configuration: #"{"retentionPeriod": 1}"#)
                _ = try await api.createTask("kept", url: origin.url("/files/1000?name=kept"))
                let completed = try await api.waitForEvent("kept") { $0.type == "task.completed" }
                let expired = try await api.waitForEvent("kept", timeout: .seconds(30)) { $0.type == "task.content_expired" }

                // verify: expired within two sweep intervals of its retention's end, while the store holds its aborts
                let late = expired.createdAt.timeIntervalSince(completed.createdAt) - 1
                #expect(late <= 2 * Self.sweepInterval + 1, "expired \(late) s after its retention ended")

                // act: a transfer stuck on its origin and a delivery stuck in its subscriber beside the stuck store
                try await api.createSession("stuck", configuration: #"{"webhook": {"url": "\#(subscriber.url)"}}"#)
                _ = try await api.createTask("stuck", url: origin.url("/files/1000000?name=stuck&stallAfter=1000"))
                try await waitUntil(timeout: .seconds(30)) { subscriber.holding > 0 }
                let stopping = ContinuousClock.now
                let status = try await service.terminate()

                // verify: ended within the grace
                let took = ContinuousClock.now - stopping
                #expect(took < .seconds(Self.grace + 2), "SIGTERM took \(took) with --shutdown-grace \(Self.grace) (exit status \(status))")
            }
        }
    }
}
