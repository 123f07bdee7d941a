import Foundation
import Testing

/// DNS rebinding, performed against the service in a process of its own whose only DNS server is the attacker's
/// (`Tests/Interop/rebinding_lab.py`): a name answers the public address (127.0.0.2, the only one the service may
/// reach) for as many lookups as the destination check makes, and the internal address (127.0.0.1) after that. A
/// request that reaches the internal server means something resolved the name again after the check.
@Suite struct DNSRebindingTests {
    struct Report: Decodable {
        var queries: [String: Int]
        var internalRequests: [String]
        var hooks: Int

        enum CodingKeys: String, CodingKey {
            case queries, hooks
            case internalRequests = "internal"
        }
    }

    @Test(.enabled(if: getuid() == 0, "a mount namespace of the service's own, for its resolv.conf, needs root"))
    func noNameIsResolvedAgainAfterItsCheck() async throws {
        // setup: names answer the public address exactly as often as the guard will ask: when a task is created, and
        // once for each request
        let names = ["rebind.test=3", "dot.test=3", "xn--bcher-kva.test=3", "late.test=2", "proxied.test=2"]
        try await Self.withLab(names) { port, service in
            let proxy = try InteropScript("forward_proxy.py", arguments: ["u:p"], environment: ["FORWARD_PROXY_ADDRESS": "127.0.0.2"])
            defer { proxy.process.send(SIGTERM) }
            let proxyPort = try #require(Int(proxy.firstLine()))
            let api = service.api
            let attacker = APIClient(baseURL: "http://127.0.0.2:\(port)", key: nil)

            // act: redirects across spellings of one name (case, trailing dot, IDNA), a rebinding the check sees, a proxy,
            // and webhooks whose URLs spell one name two ways
            try await api.createSession("lab")
            try await api.createSession("egress", configuration: #"{"proxy": "http://u:p@127.0.0.2:\#(proxyPort)"}"#)
            for (session, hook) in [("lab", "http://hook.test:\(port)/hook"), ("egress", "http://HOOK.Test.:\(port)/hook")] {
                let reply = try await api.send(.PUT, "/v1/sessions/\(session)/webhook", json: #"{"url": "\#(hook)"}"#)
                #expect(reply.status == 201, "\(reply.text)")
            }
            let redirects = [
                "http://Rebind.test:\(port)/redirect?to=http://rebind.test:\(port)/data",
                "http://dot.test.:\(port)/redirect?to=http://DOT.TEST:\(port)/data",
                "http://Bücher.test:\(port)/redirect?to=http://XN--BCHER-KVA.test.:\(port)/data",
                "http://late.test:\(port)/redirect?to=http://late.test:\(port)/data",
            ]
            for url in redirects { _ = try await api.createTask("lab", url: url) }
            _ = try await api.createTask("egress", url: "http://Proxied.test:\(port)/data")
            var finished: [String: [TaskView]] = [:]
            for (session, count) in [("lab", redirects.count), ("egress", 1)] {
                for identifier in 1...count { finished[session, default: []].append(try await api.waitForCompletion(session, identifier)) }
                try await api.waitUntilAllAcknowledged(session)
            }

            // verify: the internal server was never reached, and no name was looked up more often than the guard asks
            let report = try await attacker.send(.GET, "/report").decode(Report.self)
            #expect(report.internalRequests.isEmpty, "the internal server was reached: \(report.internalRequests)")
            for (session, task) in finished["lab"]!.prefix(3).map({ ("lab", $0) }) + [("egress", finished["egress"]![0])] {
                #expect(task.error == nil, "\(task.originalRequest.url): \(task.error?.message ?? "")")
                let content = try await api.send(.GET, "/v1/sessions/\(session)/tasks/\(task.taskIdentifier)/content")
                #expect(content.text == "public content")
            }
            #expect(finished["lab"]![3].error?.code == "destinationNotAllowed", "the second hop's own check saw the rebinding")
            let expected = ["rebind.test": 3, "dot.test": 3, "xn--bcher-kva.test": 3, "late.test": 3, "proxied.test": 2]
            #expect(report.queries.filter { $0.key != "hook.test" } == expected)
            let tunnels = try await APIClient(baseURL: "http://127.0.0.2:\(proxyPort)", key: nil).send(.GET, "/tunnels").decode(
                [String].self
            )
            #expect(tunnels == ["127.0.0.2:\(port)"], "the proxy was asked for the vetted address, not the name")
            var deliveryAttempts = 0
            for session in ["lab", "egress"] { deliveryAttempts += try await api.deliveries(session).map(\.attempts.count).reduce(0, +) }
            #expect(report.hooks > 0 && report.queries["hook.test"] == 2 + deliveryAttempts, "one lookup per webhook check and attempt")
        }
    }

    /// Runs `body` with the lab answering `names` (`name=count`), and a service in a process of its own whose only
    /// DNS server the lab is, and which may reach the public address alone.
    static func withLab(_ names: [String], _ body: (_ port: Int, ServiceProcess) async throws -> Void) async throws {
        let lab = try InteropScript("rebinding_lab.py", arguments: ["127.0.0.2", "127.0.0.1"] + names)
        defer { lab.process.send(SIGTERM) }
        let line = lab.firstLine()
        let started = line.split(separator: " ")
        guard started.count == 2, let port = Int(started[0]) else {
            // What the script printed before it exited, to the end: a missing package (pip install dnspython).
            let rest = try await lab.result(timeout: .seconds(10))
            throw LabDidNotStart(output: line + "\n" + rest)
        }
        let nameserver = String(started[1])
        let service = try await ServiceProcess.start(
            dataDirectory: DataDirectories.temporary(),
            allowedDestinations: ["127.0.0.2/32"],
            nameserver: nameserver
        )
        defer { service.stopIfRunning() }
        try await body(port, service)
    }
}

/// A tenant's store whose name passed the check when the store was named, then rebinds to an internal address: every
/// request to the store is vetted again, so the download fails as not allowed and the internal server is never
/// reached.
@Suite struct StorageRebindingTests {
    @Test(.enabled(if: getuid() == 0, "a mount namespace of the service's own, for its resolv.conf, needs root"))
    func aStoreEndpointIsVettedAtEveryRequest() async throws {
        // setup: `store.test` answers the public address once (the check when the store is named), then the internal one
        try await DNSRebindingTests.withLab(["store.test=1"]) { port, service in
            let api = service.api
            let storage =
                #"{"endpoint": "http://store.test:\#(port)", "bucket": "loot", "accessKeyId": "k", "secretAccessKey": "s", "pathStyle": true}"#
            #expect(try await api.send(.PUT, "/v1/storage/rebound", json: storage).status == 201)

            // act: a download into that store, from an origin the policy allows
            try await api.createSession("lab")
            _ = try await api.createTask(
                "lab",
                url: "http://127.0.0.2:\(port)/data",
                extra: #", "destination": {"storage": "rebound", "key": "x.bin"}"#
            )
            let task = try await api.waitForCompletion("lab", 1)

            // verify: refused at the store's request, and nothing reached the internal address
            #expect(task.error?.code == "destinationNotAllowed", "\(task.error?.message ?? "")")
            let report = try await APIClient(baseURL: "http://127.0.0.2:\(port)", key: nil).send(.GET, "/report").decode(
                DNSRebindingTests.Report.self
            )
            #expect(report.internalRequests.isEmpty, "the internal server was reached: \(report.internalRequests)")
            #expect(report.queries["store.test"] ?? 0 >= 2, "looked up again at the request: \(report.queries)")
        }
    }
}

/// The lab printed no port and address: what it printed instead (a missing package: pip install dnspython).
private struct LabDidNotStart: Error, CustomStringConvertible {
    let output: String
    var description: String { "rebinding_lab.py printed no port and address: \(output)" }
}
