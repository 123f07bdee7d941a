import AsyncHTTPClient
import Foundation
import NIOSSL
import Testing
import TransferdTestOrigins

@testable import transferd

/// connectionProxyDictionary: a session's transfers, downloads and uploads, go through its proxy
/// (`Tests/Interop/forward_proxy.py`, which opens CONNECT tunnels for the right credentials only); the destination
/// policy applies to the proxy's address and to every target it is asked to reach.
@Suite struct ProxyTests {
    /// Runs `body` with a forward proxy that takes `alice:s3cret`, and its port.
    private func withProxy<T: Sendable>(_ body: (Int) async throws -> T) async throws -> T {
        try await InteropScript.serving("forward_proxy.py", arguments: ["alice:s3cret"], hint: "python3 is needed", body)
    }

    /// The `host:port` targets the proxy opened tunnels to.
    private func tunnels(_ api: APIClient, proxyPort: Int) async throws -> [String] {
        try await APIClient(baseURL: "http://127.0.0.1:\(proxyPort)", key: nil).send(.GET, "/tunnels").decode([String].self)
    }

    @Test func downloadsAndUploadsGoThroughTheSessionsProxy() async throws {
        try await withProxy { proxyPort in
            try await OriginServer.with { origin in
                try await UploadReceiver.with { receiver in
                    try await TestService.with { api in
                        let session = try await api.send(
                            .PUT,
                            "/v1/sessions/egress",
                            json: #"{"configuration": {"proxy": "http://alice:s3cret@127.0.0.1:\#(proxyPort)"}}"#
                        )
                        _ = try await api.createTask("egress", url: origin.url("/files/5000"))
                        try await api.stageFile("data", size: 3000)
                        _ = try await api.createTask(
                            "egress",
                            url: receiver.url("raw"),
                            kind: "upload",
                            extra: #", "from": {"file": "data"}"#
                        )

                        // act
                        let download = try await api.waitForCompletion("egress", 1)
                        let upload = try await api.waitForCompletion("egress", 2)

                        // verify: both through tunnels of the proxy, and its password never shown
                        #expect(download.error == nil && download.countOfBytesReceived == 5000)
                        #expect(upload.error == nil && upload.response?.statusCode == 200)
                        let opened = try await tunnels(api, proxyPort: proxyPort)
                        let originPort = try #require(URLComponents(string: origin.url("/"))?.port)
                        let receiverPort = try #require(URLComponents(string: receiver.url("raw"))?.port)
                        #expect(opened.contains("127.0.0.1:\(originPort)") && opened.contains("127.0.0.1:\(receiverPort)"), "\(opened)")
                        #expect(session.text.contains(#""proxy":"http://alice:***@127.0.0.1:\#(proxyPort)""#), "\(session.text)")
                        #expect(!session.text.contains("s3cret"))
                    }
                }
            }
        }
    }

    @Test func aProxysDemandForCredentialsIsAChallengeTheClientAnswers() async throws {
        try await withProxy { proxyPort in
            try await OriginServer.with { origin in
                try await TestService.with { api in
                    try await api.createSession("asked", configuration: #"{"proxy": "http://127.0.0.1:\#(proxyPort)"}"#)
                    try await api.createSession("wrong", configuration: #"{"proxy": "http://alice:wrong@127.0.0.1:\#(proxyPort)"}"#)
                    _ = try await api.createTask("asked", url: origin.url("/files/5000"))
                    _ = try await api.createTask("wrong", url: origin.url("/files/5000"))

                    // verify: each proxy's 407 is a challenge for the proxy's protection space
                    let asked = try await api.waitForEvent("asked") { $0.type == "task.authentication_challenge" }
                    let wrong = try await api.waitForEvent("wrong") { $0.type == "task.authentication_challenge" }
                    let space = ProtectionSpaceView(
                        authenticationMethod: "basic",
                        host: "127.0.0.1",
                        port: proxyPort,
                        isProxy: true
                    )
                    #expect(asked.data.protectionSpace == space && asked.data.previousFailureCount == 0)
                    #expect(wrong.data.protectionSpace == space && wrong.data.previousFailureCount == 1)

                    // act: credentials for the first, default handling for the second
                    let answer = #"{"disposition": "useCredential", "credential": {"user": "alice", "password": "s3cret"}}"#
                    _ = try await api.send(.POST, "/v1/sessions/asked/tasks/1/challenge", json: answer)
                    _ = try await api.send(
                        .POST,
                        "/v1/sessions/wrong/tasks/1/challenge",
                        json: #"{"disposition": "performDefaultHandling"}"#
                    )

                    // verify
                    let done = try await api.waitForCompletion("asked", 1)
                    #expect(done.error == nil && done.countOfBytesReceived == 5000)
                    let originPort = try #require(URLComponents(string: origin.url("/"))?.port)
                    #expect(try await tunnels(api, proxyPort: proxyPort) == ["127.0.0.1:\(originPort)"])
                    let refused = try await api.waitForCompletion("wrong", 1)
                    #expect(refused.error?.code == "badServerResponse" && refused.error?.statusCode == 407)
                }
            }
        }
    }

    /// Like URLCredentialStorage, a session keeps one credential for each protection space: the proxy's and the
    /// origin's are both sent, and a later task needs neither challenge answered again.
    @Test func theProxysAndTheOriginsCredentialsAreKeptSideBySide() async throws {
        try await withProxy { proxyPort in
            try await OriginServer.with { origin in
                try await TestService.with { api in
                    try await api.createSession("both", configuration: #"{"proxy": "http://127.0.0.1:\#(proxyPort)"}"#)
                    let url = origin.url("/basic/frank/4000")
                    _ = try await api.createTask("both", url: url)

                    // act: the proxy asks first, then the origin; each answer is kept for the session
                    let asked = try await api.waitForEvent("both") { $0.type == "task.authentication_challenge" }
                    let proxyAnswer =
                        #"{"disposition": "useCredential", "credential": {"user": "alice", "password": "s3cret"}, "persistence": "forSession"}"#
                    _ = try await api.send(.POST, "/v1/sessions/both/tasks/1/challenge", json: proxyAnswer)
                    let askedAgain = try await api.waitForEvent("both") {
                        $0.type == "task.authentication_challenge" && $0.sequence > asked.sequence
                    }
                    let password = OriginServer.password(of: "frank")
                    let originAnswer =
                        #"{"disposition": "useCredential", "credential": {"user": "frank", "password": "\#(password)"}, "persistence": "forSession"}"#
                    _ = try await api.send(.POST, "/v1/sessions/both/tasks/1/challenge", json: originAnswer)
                    let first = try await api.waitForCompletion("both", 1)
                    _ = try await api.createTask("both", url: url)
                    let second = try await api.waitForCompletion("both", 2)

                    // verify
                    #expect(asked.data.protectionSpace?.isProxy == true && askedAgain.data.protectionSpace?.isProxy == false)
                    #expect(first.error == nil && second.error == nil && second.countOfBytesReceived == 4000)
                    let challenges = try await api.allEvents("both").filter { $0.type == "task.authentication_challenge" }
                    #expect(challenges.map(\.taskIdentifier) == [1, 1], "task 2 used both kept credentials")
                }
            }
        }
    }

    /// An https:// proxy is reached over TLS (its certificate from a private CA, trusted with `--ca-file`): the
    /// CONNECT, its credentials and the tunnel run inside that TLS. Without the CA, its certificate is refused.
    @Test func anHTTPSProxyIsReachedOverTLS() async throws {
        try await TestCertificates.with { certificates in try await reachesAnHTTPSProxy(certifiedIn: certificates) }
    }

    private func reachesAnHTTPSProxy(certifiedIn certificates: String) async throws {
        let arguments = ["alice:s3cret", certificates + "/server.pem", certificates + "/server.key"]
        try await InteropScript.serving("forward_proxy.py", arguments: arguments, hint: "python3 is needed") { proxyPort in
            try await OriginServer.with { origin in
                let proxy = #"{"proxy": "https://alice:s3cret@127.0.0.1:\#(proxyPort)"}"#
                let untrusted = try await TestService.with { api in
                    try await api.createSession("untrusted", configuration: proxy)
                    _ = try await api.createTask("untrusted", url: origin.url("/files/5000"))
                    return try await api.waitForCompletion("untrusted", 1)
                }
                try await TestService.with(configure: { $0.trustedCertificates = certificates + "/ca.pem" }) { api in
                    try await api.createSession("secure", configuration: proxy)
                    _ = try await api.createTask("secure", url: origin.url("/files/5000"))

                    // act
                    let task = try await api.waitForCompletion("secure", 1)

                    // verify: through a tunnel of the proxy, reached over TLS
                    #expect(task.error == nil && task.countOfBytesReceived == 5000, "\(String(describing: task.error))")
                    let client = HTTPClient(
                        configuration: .init(tlsConfiguration: TLSConfiguration.makeClientConfiguration(trusting: certificates + "/ca.pem"))
                    )
                    defer { _ = client.shutdown() }
                    let tunnels = try await client.execute(.init(url: "https://127.0.0.1:\(proxyPort)/tunnels"), timeout: .seconds(10))
                    let opened = try JSONDecoder().decode([String].self, from: try await tunnels.body.collect(upTo: 1 << 16))
                    let originPort = try #require(URLComponents(string: origin.url("/"))?.port)
                    #expect(opened == ["127.0.0.1:\(originPort)"])
                }
                #expect(
                    untrusted.error?.code == "secureConnectionFailed" && untrusted.attempts.count == 1,
                    "\(String(describing: untrusted.error))"
                )
            }
        }
    }

    @Test func theDestinationPolicyAppliesToTheProxyAndToEveryTarget() async throws {
        try await withProxy { proxyPort in
            try await OriginServer.with { origin in
                try await TestService.with { api in
                    // act: a proxy at a private address; then a redirect, through an allowed proxy, to one
                    let privateProxy = try await api.send(
                        .PUT,
                        "/v1/sessions/inside",
                        json: #"{"configuration": {"proxy": "http://10.1.2.3:3128"}}"#
                    )
                    try await api.createSession("egress", configuration: #"{"proxy": "http://alice:s3cret@127.0.0.1:\#(proxyPort)"}"#)
                    _ = try await api.createTask("egress", url: origin.url("/redirect/1/100?to=http://10.255.255.1/secret"))
                    let task = try await api.waitForCompletion("egress", 1)

                    // verify
                    #expect(privateProxy.status == 422)
                    #expect(privateProxy.problem?.detail.hasPrefix("`configuration.proxy`: 10.1.2.3") == true, "\(privateProxy.text)")
                    #expect(task.error?.code == "destinationNotAllowed")
                    #expect(try await tunnels(api, proxyPort: proxyPort).allSatisfy { !$0.hasPrefix("10.") }, "the proxy was never asked")
                }
            }
        }
    }

    @Test(arguments: [
        ("ftp://proxy.example:21", "`configuration.proxy` must use http:// or https:// (a CONNECT proxy) or socks5://, not `ftp`."),
        ("http://proxy.example:3128/path", "`configuration.proxy` must be a proxy's address only, without a path or query."),
        ("socks5://user:pw@proxy.example:1080", "`configuration.proxy` may carry credentials only for an http:// or https:// proxy."),
        ("proxy.example", "`configuration.proxy` must be a proxy URL such as http://proxy.example:3128."),
    ])
    func aBadProxyIsRefusedByName(proxy: String, detail: String) async throws {
        try await TestService.with { api in
            let reply = try await api.send(.PUT, "/v1/sessions/bad", json: #"{"configuration": {"proxy": "\#(proxy)"}}"#)
            #expect(reply.status == 400)
            #expect(reply.problem?.detail == detail)
        }
    }
}
