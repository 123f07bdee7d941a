import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOSSL
import Synchronization
import TransferdTestOrigins

/// An origin over TLS on 127.0.0.1 that offers HTTP/2 (ALPN `h2`, HTTP/1.1 besides), with a certificate from a CA
/// made for the test (`TestCertificates`): `/files/{size}` serves the test content. `caFile` is the CA to trust.
final class TLSOriginServer: Sendable {
    let port: Int
    let caFile: String

    private init(port: Int, caFile: String) {
        self.port = port
        self.caFile = caFile
    }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    static func with<T: Sendable>(_ body: (TLSOriginServer) async throws -> T) async throws -> T {
        try await TestCertificates.with { directory in
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(directory + "/server.pem").map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: directory + "/server.key", format: .pem))
            )
            let router = Router()
            router.get("files/:size") { _, context in
                let size = context.parameters.get("size", as: Int.self) ?? 0
                return Response(
                    status: .ok,
                    headers: [.contentLength: String(size)],
                    body: .init(byteBuffer: OriginContent.buffer(0..<size))
                )
            }
            return try await LoopbackServer.run(
                router,
                port: 0,
                server: try .http2Upgrade(tlsConfiguration: tls),
                make: { TLSOriginServer(port: $0, caFile: directory + "/ca.pem") },
                body
            )
        }
    }
}
