import Foundation
import NIOSSL
import Testing

/// A CA, and a certificate it signed for 127.0.0.1 (`server.pem`, `server.key`), made with Debian's `openssl` in a new
/// temporary directory for the tests' TLS servers; `ca.pem` is the CA to trust.
enum TestCertificates {
    /// Runs `body` with the directory of new certificates, and removes it after.
    static func with<T>(_ body: (_ directory: String) async throws -> T) async throws -> T {
        let directory = try await make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    /// Makes them; returns the directory.
    private static func make() async throws -> String {
        let directory = NSTemporaryDirectory() + "transferd-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = { (name: String) in "\(directory)/\(name)" }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(
            ["req", "-x509"] + ec + ["-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "2", "-subj", "/CN=transferd test CA"]
        )
        try await openssl(["req"] + ec + ["-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: file("san.ext"), atomically: true, encoding: .utf8)
        try await openssl(
            ["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial"]
                + ["-out", file("server.pem"), "-days", "2", "-extfile", file("san.ext")]
        )
        return directory
    }

    /// Runs `openssl` as the tests run every child (`ChildProcess`: Foundation's `Process` crashes in the parallel run).
    private static func openssl(_ arguments: [String]) async throws {
        let (status, output) = try await ChildProcess.run("/usr/bin/openssl", arguments)
        try #require(status == 0, "openssl \(arguments.joined(separator: " ")) failed: \(output)")
    }
}

extension TLSConfiguration {
    /// A client's configuration that trusts the CA in `caFile` besides the system's.
    static func makeClientConfiguration(trusting caFile: String) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.file(caFile)]
        return configuration
    }
}
