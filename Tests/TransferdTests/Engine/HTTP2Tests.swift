import Foundation
import Testing
import TransferdTestOrigins

@testable import transferd

/// An origin that offers HTTP/2 over TLS is downloaded from over HTTP/2 (ALPN); the protocol shows in the task's
/// metrics. The origin's certificate comes from a private CA, trusted with `--ca-file`.
@Suite struct HTTP2Tests {
    struct Protocols: Decodable {
        struct Metrics: Decodable {
            struct Transaction: Decodable {
                var networkProtocolName: String?
                var countOfResponseBodyBytesReceived: Int
                var isReusedConnection: Bool?
            }

            var transactionMetrics: [Transaction]
        }

        var metrics: Metrics?
    }

    @Test func aTLSOriginThatOffersHTTP2IsDownloadedOverHTTP2() async throws {
        try await TLSOriginServer.with { origin in
            try await TestService.with(configure: { $0.trustedCertificates = origin.caFile }) { api in
                try await api.createSession("h2")
                _ = try await api.createTask("h2", url: origin.url("/files/300000"))

                // act
                let task = try await api.waitForCompletion("h2", 1)
                let shown = try await api.send(.GET, "/v1/sessions/h2/tasks/1").decode(Protocols.self)

                // verify
                #expect(task.error == nil && task.countOfBytesReceived == 300_000, "\(String(describing: task.error))")
                #expect(task.file?.sha256 == OriginContent.sha256(size: 300_000))
                let request = try #require(shown.metrics?.transactionMetrics.last)
                #expect(request.networkProtocolName == "h2" && request.countOfResponseBodyBytesReceived == 300_000)
                #expect(request.isReusedConnection == nil, "AsyncHTTPClient does not say which HTTP/2 connection carried it")
            }
        }
    }

    @Test func anUntrustedCertificateFailsTheTransfer() async throws {
        try await TLSOriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("untrusted")
                _ = try await api.createTask("untrusted", url: origin.url("/files/1000"))
                let task = try await api.waitForCompletion("untrusted", 1)
                #expect(task.error?.code == "secureConnectionFailed" && task.countOfBytesReceived == 0, "\(String(describing: task.error))")
            }
        }
    }
}
