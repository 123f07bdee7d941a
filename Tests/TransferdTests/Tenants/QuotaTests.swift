import Foundation
import Testing

/// Quotas per tenant, set from the command line (`transferd tenants set`, `transferd keys create`) while the real
/// binary runs: one tenant held to its own figures is refused with a problem that names the quota and its figures,
/// the other tenant goes on, and the API and `/metrics` show each tenant's usage against its quota.
@Suite struct QuotaTests {
    static let waiting = #", "start": false"#

    @Test func eachQuotaRefusesTheTenantItIsSetForAndNoOther() async throws {
        let (service, t2, dataDirectory) = try await TwoTenants.start()
        defer { service.stopIfRunning() }
        try await KeyManagement.command(
            ["tenants", "set", "t2", "--sessions", "1", "--queued-tasks", "2", "--stored-bytes", "3000", "--fetches", "1"],
            dataDirectory: dataDirectory
        )

        // sessions
        try await t2.createSession("first")
        let session = try await t2.send(.PUT, "/v1/sessions/second", json: "{}")
        #expect(session.status == 429)
        Self.expectBreach(session.problem, "sessions", limit: 1, used: 1, requested: 1)
        for name in ["first", "second"] { try await service.api.createSession(name) }

        // queued tasks
        for _ in 0..<2 { _ = try await t2.createTask("first", url: "http://127.0.0.1:9/", extra: Self.waiting) }
        let task = try await t2.send(.POST, "/v1/sessions/first/tasks", json: #"{"kind": "download", "url": "http://127.0.0.1:9/"}"#)
        #expect(task.status == 429)
        Self.expectBreach(task.problem, "queuedTasks", limit: 2, used: 2, requested: 1)
        for _ in 0..<3 { _ = try await service.api.createTask("first", url: "http://127.0.0.1:9/", extra: Self.waiting) }

        // stored bytes: a staged file holds its declared length
        _ = try await t2.stageFile("kept", size: 2000)
        let tus = try await t2.send(.POST, "/v1/files", headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "2000")])
        #expect(tus.status == 507)
        Self.expectBreach(tus.problem, "storedBytes", limit: 3000, used: 2000, requested: 2000)
        let plain = try await t2.send(.PUT, "/v1/files/plain", bytes: OriginContent.buffer(0..<1001))
        #expect(plain.status == 507)
        Self.expectBreach(plain.problem, "storedBytes", limit: 3000, used: 2000, requested: 1001)
        #expect(try await t2.send(.GET, "/v1/files/plain").status == 404, "nothing of the refused file is kept")
        _ = try await service.api.stageFile("large", size: 50_000)

        // fetch schedules, across the tenant's sessions
        let fetch = #"{"url": "http://127.0.0.1:9/feed", "interval": 3600}"#
        #expect(try await t2.send(.POST, "/v1/sessions/first/fetches", json: fetch).status == 201)
        let schedule = try await t2.send(.POST, "/v1/sessions/first/fetches", json: fetch)
        #expect(schedule.status == 429)
        Self.expectBreach(schedule.problem, "fetches", limit: 1, used: 1, requested: 1)
        for _ in 0..<2 { #expect(try await service.api.send(.POST, "/v1/sessions/second/fetches", json: fetch).status == 201) }

        // shown to each tenant, and to the operator
        let own = try await t2.send(.GET, "/v1/tenant").decode(TenantView.self)
        #expect(own.name == "t2")
        #expect(own.quotas.sessions == .init(limit: 1, used: 1))
        #expect(own.quotas.queuedTasks == .init(limit: 2, used: 2))
        #expect(own.quotas.storedBytes == .init(limit: 3000, used: 2000))
        #expect(own.quotas.fetches == .init(limit: 1, used: 1))
        let other = try await service.api.send(.GET, "/v1/tenant").decode(TenantView.self)
        #expect(other.name == "default")
        #expect(other.quotas.sessions == .init(limit: 1000, used: 2), "the service's default")
        #expect(other.quotas.storedBytes == .init(limit: nil, used: 50_000))
        #expect(other.quotas.fetches == .init(limit: 1000, used: 2), "the service's default")
        let scrape = try await Scrape(service.api)
        #expect(scrape[#"transferd_tenant_usage{quota="storedBytes",tenant="t2"}"#] == 2000)
        #expect(scrape[#"transferd_tenant_quota{quota="storedBytes",tenant="t2"}"#] == 3000)
        #expect(scrape[#"transferd_tenant_usage{quota="sessions",tenant="default"}"#] == 2)
        #expect(scrape[#"transferd_tenant_usage{quota="fetches",tenant="t2"}"#] == 1)
        let listed = try await KeyManagement.tenantLines(dataDirectory: dataDirectory)
        #expect(listed.contains("t2\t1/1\t2/2\t2000/3000\t1/1\tdefault"), "transferd tenants list: \(listed)")
        let dashboard = DashboardClient(t2)
        _ = try await dashboard.signIn(t2.key ?? "")
        let page = try await dashboard.get("/ui/sessions").text
        let figures = [
            "<dt>Sessions</dt><dd>1 of 1</dd>", "<dt>Queued tasks</dt><dd>2 of 2</dd>", "<dt>Stored</dt><dd>2 kB of 3 kB</dd>",
            "<dt>Fetch schedules</dt><dd>1 of 1</dd>",
        ]
        for figure in figures {
            #expect(page.contains(figure), "the dashboard shows \(figure)")
        }

        // back to the service's default
        try await KeyManagement.command(["tenants", "set", "t2", "--sessions", "default"], dataDirectory: dataDirectory)
        try await t2.createSession("second")
    }

    /// t2 may keep 200 kB; its 1 MB download stops at a checkpoint past that and waits (`storageQuota`), keeping what
    /// it has, while the other tenant's download completes. Once the quota is lifted it continues and completes.
    @Test func aDownloadOverItsTenantsStorageQuotaWaitsAndContinuesWhenItIsLifted() async throws {
        try await OriginServer.with { origin in
            let (service, t2, dataDirectory) = try await TwoTenants.start { dataDirectory in
                try await KeyManagement.command(["tenants", "set", "t2", "--stored-bytes", "200000"], dataDirectory: dataDirectory)
            }
            defer { service.stopIfRunning() }
            try await t2.createSession("large", configuration: #"{"retryMaximumDelay": 1}"#)
            _ = try await t2.createTask("large", url: origin.url("/files/1000000?name=large&bytesPerSecond=200000"))
            try await service.api.createSession("other")
            _ = try await service.api.createTask("other", url: origin.url("/files/1000000?name=other&bytesPerSecond=400000"))

            try await waitUntil(timeout: .seconds(30)) { try await t2.task("large", 1).waitingReason == "storageQuota" }
            let held = try await t2.task("large", 1)
            #expect(held.state == "running" && held.error == nil)
            #expect(held.attempts.first?.outcome == "quotaExceeded")
            let other = try await service.api.waitForCompletion("other", 1)
            #expect(other.file?.sha256 == OriginContent.sha256(size: 1_000_000))

            try await KeyManagement.command(["tenants", "set", "t2", "--stored-bytes", "default"], dataDirectory: dataDirectory)
            let large = try await t2.waitForCompletion("large", 1, timeout: .seconds(90))
            #expect(large.file?.sha256 == OriginContent.sha256(size: 1_000_000))
            #expect(origin.ranges("large").contains { $0 != nil }, "it continued from its checkpoint")
        }
    }

    /// t2's key was issued with `--transfers 1`: when t1 holds all four workers, t2 takes one back, not the two that
    /// half the workers would give it, and t1 keeps three.
    @Test func aTenantsOwnTransferShareFromItsKeyBoundsWhatItTakesBack() async throws {
        try await OriginServer.with { origin in
            let (service, t2, _) = try await TwoTenants.start(["--worker-concurrency", "4"]) { dataDirectory in
                try await KeyManagement.command(
                    ["keys", "create", "--name", "t2-batch", "--tenant", "t2", "--transfers", "1"],
                    dataDirectory: dataDirectory
                )
            }
            defer { service.stopIfRunning() }
            let arrivals = { (prefix: String) in (1...4).reduce(0) { $0 + origin.arrivals("\(prefix)-\($1)").count } }
            try await service.api.createSession("busy", configuration: #"{"timeoutIntervalForRequest": 86400}"#)
            for index in 1...4 { _ = try await service.api.createTask("busy", url: origin.url("/files/1000?name=t1-\(index)&hold=never")) }
            try await waitUntil(timeout: .seconds(30)) { arrivals("t1") == 4 }

            try await t2.createSession("other", configuration: #"{"timeoutIntervalForRequest": 86400}"#)
            for index in 1...3 { _ = try await t2.createTask("other", url: origin.url("/files/1000?name=t2-\(index)&hold=never")) }

            try await waitUntil(timeout: .seconds(30)) { arrivals("t2") == 1 }
            // Looked at four times a second: a share of two would have taken the second worker back by now.
            try await Task.sleep(for: .seconds(2))
            #expect(arrivals("t2") == 1 && arrivals("t1") == 4)
            let tenant = try await t2.send(.GET, "/v1/tenant").decode(TenantView.self)
            #expect(tenant.quotas.transfers.limit == 1)
        }
    }

    private static func expectBreach(_ problem: ProblemView?, _ quota: String, limit: Int64, used: Int64, requested: Int64) {
        #expect(problem?.type == "urn:transferd:problem:quota-exceeded")
        #expect(problem?.quota?.rawValue == quota)
        #expect(problem?.limit == Int(limit) && problem?.used == Int(used) && problem?.requested == Int(requested))
        #expect(problem?.detail.contains("quota of") == true, "\(problem?.detail ?? "")")
    }
}
