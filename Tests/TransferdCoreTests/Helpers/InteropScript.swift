import Foundation
import Testing

/// A Python script of `Tests/Interop/` in a child process: the public packages it uses (pip) check transferd
/// with code nobody here wrote.
struct InteropScript {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    let process: Process
    private let output: Pipe

    /// Starts `Tests/Interop/<name>` with `arguments`.
    init(_ name: String, arguments: [String] = []) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.directory.appendingPathComponent(name).path] + arguments
        output = Pipe()
        process.standardOutput = output
        try process.run()
    }

    /// The first line the script prints (a server's port); empty when it exits first (a missing package).
    func firstLine() -> String {
        String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Everything the script prints, once it has exited; throws when it failed.
    func result() async throws -> String {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try await waitUntil(timeout: .seconds(60)) { !process.isRunning }
        try #require(process.terminationStatus == 0, "\(process.arguments ?? []) failed: \(text)")
        return text
    }

    /// Runs a server script for the duration of `body`, passing the port it printed.
    static func serving<T: Sendable>(_ name: String, hint: String, _ body: (Int) async throws -> T) async throws -> T {
        let script = try InteropScript(name)
        defer { script.process.terminate() }
        let port = try #require(Int(script.firstLine()), "\(name) did not start: \(hint)")
        return try await body(port)
    }
}
