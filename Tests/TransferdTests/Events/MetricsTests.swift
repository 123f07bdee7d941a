import Foundation
import NIOCore
import Testing
import TransferdTestOrigins

@testable import transferd

/// `GET /metrics`, parsed by the public `prometheus-client` parser (PyPI): counters move when downloads complete
/// and fail, and requests are counted by route template; only admin keys may scrape.
@Suite struct MetricsTests {
    @Test func countersMoveWhenDownloadsCompleteFailAndAreDeliveredByWebhook() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with { api in
                    try await api.createSession(
                        "counted",
                        configuration: #"{"webhook": {"url": "\#(receiver.url)", "events": ["task.completed"]}}"#
                    )
                    let before = try await Scrape(api)

                    // act: one download that succeeds, one that fails for good (404)
                    _ = try await api.createTask("counted", url: origin.url("/files/300000"))
                    _ = try await api.createTask("counted", url: origin.url("/status/404"))
                    try await api.waitForCompletion("counted", 1)
                    try await api.waitForCompletion("counted", 2)
                    try await api.waitUntilAllAcknowledged("counted")
                    let after = try await Scrape(api)

                    // verify: the counters moved by what happened, with bounded labels
                    #expect(
                        after[#"transferd_tasks_created_total{kind="download"}"#]
                            - before[#"transferd_tasks_created_total{kind="download"}"#]
                            == 2
                    )
                    #expect(after[#"transferd_tasks_completed_total{kind="download",outcome="success"}"#] == 1)
                    #expect(after[#"transferd_tasks_completed_total{kind="download",outcome="badServerResponse"}"#] == 1)
                    #expect(after["transferd_bytes_received_total{}"] == 300_000)
                    #expect(after[#"transferd_transfer_attempts_total{outcome="succeeded"}"#] == 1)
                    #expect(after[#"transferd_transfer_attempts_total{outcome="badServerResponse"}"#] == 1)
                    #expect(after["transferd_transfer_duration_seconds_count{}"] == 2)
                    #expect(after[#"transferd_events_written_total{type="task.completed"}"#] == 2)
                    let created = #"transferd_http_requests_total{method="POST",route="/v1/sessions/{identifier}/tasks",status="201"}"#
                    #expect(after[created] == 2)
                    #expect(after.types["transferd_tasks_completed"] == "counter")
                    #expect(after.types["transferd_http_request_duration_seconds"] == "histogram")
                    #expect(!after.samples.keys.contains { $0.contains("counted") }, "no session identifiers in labels")
                    // the webhook: both completions delivered, timed from their events' commit; nothing left to send
                    #expect(after[#"transferd_webhook_deliveries_total{outcome="delivered"}"#] == 2)
                    #expect(after["transferd_webhook_delivery_latency_seconds_count{}"] == 2)
                    #expect(after["transferd_webhook_backlog{}"] == 0)
                    // what a scrape samples: nothing transferring or waiting now, free space, the process
                    #expect(after[#"transferd_transfers_active{kind="download"}"#] == 0)
                    #expect(after[#"transferd_tasks_waiting{reason="queued"}"#] == 0)
                    #expect(after["transferd_disk_free_bytes{}"] > 0)
                    #expect(after["process_resident_memory_bytes{}"] > 0)
                    #expect(after["process_cpu_seconds_total{}"] > 0)
                    #expect(after["process_open_fds{}"] > 0)
                    // the example dashboard and alerts of deploy/ use only metrics the service serves
                    let served = Set(after.samples.keys.map { String($0.prefix { $0 != "{" }) })
                    #expect(try Self.namesUsedInDeployFiles().subtracting(served).isEmpty)
                }
            }
        }
    }

    /// The `transferd_…` metric names that `deploy/` (Prometheus rules, Grafana dashboard) refers to.
    static func namesUsedInDeployFiles() throws -> Set<String> {
        let deploy = InteropScript.directory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy")
        var names: Set<String> = []
        for file in ["alerts.yml", "grafana-dashboard.json", "prometheus.yml"] {
            let text = try String(contentsOf: deploy.appendingPathComponent(file), encoding: .utf8)
            let pattern = try Regex(#"transferd_[a-z_]+"#)
            names.formUnion(text.matches(of: pattern).map { String(text[$0.range]) })
        }
        return names
    }

    @Test func onlyAdminKeysMayScrape() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            var tenant = api
            tenant.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "app", tenant: "app", admin: false)
            let refused = try await tenant.send(.GET, "/metrics")
            #expect(refused.status == 403)
            #expect(
                try await api.send(.GET, "/metrics").headers.first(name: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true
            )
        }
    }

    @Test func aMetricsPortServesTheMetricsAloneWithoutAKey() async throws {
        // A port reserved and released for the service can be taken by another test's listener (or connection)
        // before the service binds it (a parallel run starts many): then the service does not start, or its metrics
        // listener does not answer, and the test tries again on another.
        for _ in 1...3 {
            let reserved = try ReservedPort()
            reserved.release()
            let served = try await Self.unlessPortTaken {
                try await TestService.with(configure: { $0.metricsPort = reserved.port }) { api in
                    var monitoring = APIClient(baseURL: "http://127.0.0.1:\(reserved.port)")
                    monitoring.key = nil
                    // the listener starts beside the API's, not before it
                    let deadline = ContinuousClock.now + .seconds(10)
                    while (try? await monitoring.send(.GET, "/metrics"))?.status != 200 {
                        guard ContinuousClock.now < deadline else { return false }
                        try await Task.sleep(for: .milliseconds(20))
                    }

                    let scrape = try await Scrape(monitoring)

                    #expect(scrape["process_resident_memory_bytes{}"] > 0)
                    #expect(try await monitoring.send(.GET, "/v1/sessions").status == 404, "the metrics alone")
                    #expect(try await api.send(.GET, "/metrics").status == 200, "and still on the API's port for admin keys")
                    return true
                }
            }
            if served { return }
        }
        Issue.record("the metrics listener never answered, on three ports")
    }

    /// `body`'s result, or false when it failed because a port it binds was taken.
    private static func unlessPortTaken(_ body: () async throws -> Bool) async throws -> Bool {
        do {
            return try await body()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            return false
        }
    }
}
