import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOSSL
import Synchronization

/// An origin over TLS on 127.0.0.1 that offers HTTP/2 (ALPN `h2`, HTTP/1.1 besides), with a certificate from a CA
/// made for the test with Debian's `openssl`: `/files/{size}` serves the test content. `caFile` is the CA to trust.
final class TLSOriginServer: Sendable {
    let port: Int
    let caFile: String

    private init(port: Int, caFile: String) {
        self.port = port
        self.caFile = caFile
    }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    static func with<T: Sendable>(_ body: (TLSOriginServer) async throws -> T) async throws -> T {
        let directory = try Certificates.make()
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(directory + "/server.pem").map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: directory + "/server.key", format: .pem))
        )
        let router = Router()
        router.get("files/:size") { _, context in
            let size = context.parameters.get("size", as: Int.self) ?? 0
            return Response(status: .ok, headers: [.contentLength: String(size)], body: .init(byteBuffer: OriginContent.buffer(0..<size)))
        }
        return try await LoopbackServer.run(
            router,
            port: 0,
            server: try .http2Upgrade(tlsConfiguration: tls),
            make: { TLSOriginServer(port: $0, caFile: directory + "/ca.pem") },
            body
        )
    }

    /// A CA and a certificate it signed for 127.0.0.1, in a new temporary directory.
    private enum Certificates {
        static func make() throws -> String {
            let directory = NSTemporaryDirectory() + "transferd-tls-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try openssl(
                ["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=transferd test CA"],
                in: directory
            )
            try openssl(["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], in: directory)
            try "subjectAltName=IP:127.0.0.1\n".write(toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
            try openssl(
                [
                    "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                    "-days", "2",
                ]
                    + ["-extfile", "san.ext"],
                in: directory
            )
            return directory
        }

        private static func openssl(_ arguments: [String], in directory: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }
}
