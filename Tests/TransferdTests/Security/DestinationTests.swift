import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Transfers and webhooks reach only public addresses, unless the operator opens more: checked on the addresses a
/// host resolves to, and on every redirect hop.
@Suite struct DestinationTests {
    static let blocked = [
        "http://127.0.0.1/", "http://10.1.2.3/", "http://172.16.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/", "http://224.0.0.1/", "http://0.0.0.0/", "http://[::1]/", "http://[fc00::1]/", "http://[fe80::1]/",
        "http://[ff02::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:10.0.0.1]/",
        // IPv6 forms that carry an IPv4 address, and deprecated or discard ranges
        "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b:1::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::]/", "http://[::127.0.0.1]/",
        "http://[::ffff:0:7f00:1]/", "http://[fec0::1]/", "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "http://[100::1]/",
        // IPv4 in the forms inet_aton takes
        "http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/",
    ]

    /// Every IPv6 form that embeds an IPv4 address is judged on that address; deprecated and discard ranges are
    /// refused outright; public addresses in the same forms pass.
    @Test(
        arguments: [
            ("64:ff9b::a9fe:a9fe", "64:ff9b::a9fe:a9fe carries 169.254.169.254, a link-local address (cloud metadata lives here)"),
            ("64:ff9b::7f00:1", "64:ff9b::7f00:1 carries 127.0.0.1, a loopback address"),
            ("64:ff9b:1::a9fe:a9fe", "64:ff9b:1::a9fe:a9fe is a local-use NAT64 address"),
            ("2002:a9fe:a9fe::", "2002:a9fe:a9fe:: carries 169.254.169.254, a link-local address (cloud metadata lives here)"),
            ("2002:7f00:1::1", "2002:7f00:1::1 carries 127.0.0.1, a loopback address"),
            ("::127.0.0.1", "::127.0.0.1 is a deprecated IPv4-compatible address"),
            ("::ffff:0:7f00:1", "::ffff:0:7f00:1 carries 127.0.0.1, a loopback address"),
            ("::ffff:127.0.0.1", "127.0.0.1 is a loopback address"),
            ("fec0::1", "fec0::1 is a deprecated site-local address"),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:0:4136:e378:8000:63bf:80ff:fffe carries 127.0.0.1, a loopback address"),
            ("2001:0:a00:1::", "2001:0:a00:1:: carries 10.0.0.1, a private address (RFC 1918)"),
            ("100::1", "100::1 is a discard-only address"),
            ("2001:db8::1", "2001:db8::1 is a documentation address"),
            ("192.0.2.1", "192.0.2.1 is a documentation address"),
            ("64:ff9b::5db8:d70e", nil), ("2002:5db8:d70e::1", nil), ("2606:4700::1111", nil),
        ] as [(String, String?)]
    )
    func embeddedAddressesAreJudged(address: String, refusal: String?) throws {
        #expect(DestinationPolicy().refusal(for: try #require(IPAddress(address))) == refusal)
    }

    /// A host is spelled one way for every step: the client's parse (IDNA), lower case, no trailing dot, numeric IPv4
    /// forms as a dotted quad.
    @Test(arguments: [
        ("http://Rebind.TEST./x?y", "http://rebind.test/x?y", "rebind.test"),
        ("http://Bücher.test:81/", "http://xn--bcher-kva.test:81/", "xn--bcher-kva.test"),
        ("HTTPS://[::FFFF:7F00:1]/", "https://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("http://0x7f.1/", "http://127.0.0.1/", "127.0.0.1"),
        ("http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080/", "2001:db8::1"),
    ])
    func aHostIsSpelledOneWay(given: String, url: String, host: String) throws {
        let destination = try Destination(given)
        #expect(destination.url == url && destination.host == host)
    }

    @Test func aHostThatCannotBeSpelledOneWayIsRefusedAtCreation() async throws {
        try await TestService.with { api in
            try await api.createSession("spelling")
            let reply = try await api.send(.POST, "/v1/sessions/spelling/tasks", json: #"{"kind": "download", "url": "http://a..b/"}"#)
            #expect(reply.status == 400)
            #expect(reply.problem?.detail == "`url` must name a valid host (The URL's host `a..b` is not a valid host name.).")
        }
    }

    /// The last two were found by fuzzing: a broken IPv6 literal is no host name, and an empty port is no port.
    @Test func aHostThatIsNoNameIsRefusedAndTheServiceStaysUp() async throws {
        try await TestService.with { api in
            try await api.createSession("broken")
            for url in ["http://[64:ff9b::a9fe:a9fu]/", "http://exa mple.com/", "http://a_b!.example/"] {
                let reply = try await api.send(.POST, "/v1/sessions/broken/tasks", json: #"{"kind": "download", "url": "\#(url)"}"#)
                #expect(reply.status == 400, "\(url): \(reply.text)")
            }
            #expect(try await api.send(.GET, "/healthz").status == 200)
            #expect(try Destination("https://[8.1]:/").url == "https://8.0.0.1/")
        }
    }

    @Test(arguments: [
        "ftp://example.com/", "http:///x", "http://a..b./", "http://[fe80::1%25eth0]/", "http://example.com../",
        "http://[64:ff9b::a9fe:a9fu]/",
        "http://example.com:99999/",
    ])
    func aURLWithoutAUsableHostIsRefused(url: String) {
        #expect(throws: TransferError.self) { try Destination(url) }
    }

    @Test(arguments: blocked)
    func aTaskToABlockedAddressIsRefusedAtCreation(url: String) async throws {
        try await TestService.with(configure: { $0.destinationPolicy = DestinationPolicy() }) { api in
            try await api.createSession("ssrf")
            let reply = try await api.send(.POST, "/v1/sessions/ssrf/tasks", json: #"{"kind": "download", "url": "\#(url)"}"#)
            #expect(reply.status == 422)
            #expect(reply.problem?.type == "urn:transferd:problem:destination-not-allowed")
            #expect(reply.problem?.detail.hasPrefix("`url`: ") == true)
            #expect(try await api.send(.GET, "/v1/sessions/ssrf/tasks").decode(TaskPage.self).items.isEmpty)
        }
    }

    @Test func aNameThatResolvesToAPrivateAddressIsRefused() async throws {
        try await TestService.with(configure: { $0.destinationPolicy = DestinationPolicy() }) { api in
            try await api.createSession("names")
            let reply = try await api.send(
                .POST,
                "/v1/sessions/names/tasks",
                json: #"{"kind": "download", "url": "http://localhost:8080/"}"#
            )
            #expect(reply.status == 422)
            #expect(reply.problem?.detail.hasPrefix("`url`: localhost is not an allowed destination: ") == true)
            let webhook = try await api.send(.PUT, "/v1/sessions/names/webhook", json: #"{"url": "http://10.0.0.1/hook"}"#)
            #expect(webhook.status == 422)
        }
    }

    @Test func aRedirectToABlockedAddressFailsTheTask() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("hops")
                _ = try await api.createTask("hops", url: origin.url("/redirect/2/10?to=http://169.254.169.254/latest/meta-data/"))
                let task = try await api.waitForCompletion("hops", 1)

                #expect(task.error?.code == "destinationNotAllowed")
                #expect(task.attempts.count == 1, "not retried: it will never be allowed")
            }
        }
    }

    @Test func theAllowlistOpensWhatTheOperatorNeeds() {
        let closed = DestinationPolicy()
        let opened = DestinationPolicy(allowed: ["10.1.0.0/16"])
        let everything = DestinationPolicy(allowPrivate: true)
        let inside = IPAddress("10.1.2.3")!
        #expect(closed.refusal(for: inside) == "10.1.2.3 is a private address (RFC 1918)")
        #expect(opened.refusal(for: inside) == nil)
        #expect(opened.refusal(for: IPAddress("10.2.0.1")!) != nil)
        #expect(everything.refusal(for: IPAddress("::ffff:192.168.0.1")!) == nil)
        #expect(closed.refusal(for: IPAddress("93.184.215.14")!) == nil)
        #expect(closed.refusal(for: IPAddress("2606:2800:21f:cb07:6820:80da:af6b:8b2c")!) == nil)
        #expect(DestinationPolicy(allowed: ["not a block"]).invalidAllowances == ["not a block"])
    }

    @Test func credentialsAreUsedButNeverShown() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let headers = #"{"X-Api-Key": "s3cret-session", "X-Trace": "visible"}"#
                try await api.createSession("secrets", configuration: #"{"httpAdditionalHeaders": \#(headers)}"#)
                let url = origin.url("/files/10").replacingOccurrences(of: "http://", with: "http://user:p4ssword@")
                let created = try await api.createTask("secrets", url: url, extra: #", "headers": {"Cookie": "id=s3cret-task"}"#)
                try await api.waitForCompletion("secrets", 1)

                let everything = [
                    try await api.send(.GET, "/v1/sessions/secrets").text,
                    try await api.send(.GET, "/v1/sessions/secrets/tasks/1").text,
                    try await api.send(.GET, "/v1/sessions/secrets/events").text,
                ].joined()
                for secret in ["s3cret-session", "s3cret-task", "p4ssword"] {
                    #expect(!everything.contains(secret), "\(secret) was echoed")
                }
                #expect(everything.contains("visible"))
                #expect(
                    created.originalRequest.url.contains("user:%3Credacted%3E@") || created.originalRequest.url.contains("user:<redacted>@")
                )
                let authorization = try #require(origin.lastHeaders["authorization"])
                #expect(authorization == "Basic \(Data("user:p4ssword".utf8).base64EncodedString())")
            }
        }
    }

    @Test(arguments: ["text", "json"])
    func credentialsNeverReachTheLogs(format: String) async throws {
        try await OriginServer.with { origin in
            let service = try await ServiceProcess.start(dataDirectory: DataDirectories.temporary(), log: (format, "debug"))
            defer { service.stopIfRunning() }
            try await service.api.createSession(
                "logged",
                configuration: #"{"httpAdditionalHeaders": {"Authorization": "Bearer s3cret-log"}}"#
            )
            let url = origin.url("/status/503").replacingOccurrences(of: "http://", with: "http://user:p4ss-log@")
            _ = try await service.api.createTask("logged", url: url)
            try await waitUntil { try await service.api.task("logged", 1).attempts.count >= 2 }
            try await service.terminate()

            #expect(service.log.contains("listening on"), "the log was captured")
            #expect(!service.log.contains("s3cret-log"))
            #expect(!service.log.contains("p4ss-log"))
        }
    }
}
