import Foundation
import NIOSSL

/// A CA, and a certificate it signed for 127.0.0.1 (`server.pem`, `server.key`), made with Debian's `openssl` in a new
/// temporary directory for the tests' TLS servers; `ca.pem` is the CA to trust.
enum TestCertificates {
    /// Makes them; returns the directory.
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

extension TLSConfiguration {
    /// A client's configuration that trusts the CA in `caFile` besides the system's.
    static func makeClientConfiguration(trusting caFile: String) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.file(caFile)]
        return configuration
    }
}
