import Foundation
import Synchronization
import Testing

/// A Python script of `Tests/Interop/` in a child process: the public packages it uses (pip) check transferd
/// with code nobody here wrote.
package struct InteropScript {
    package static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    package let process: ChildProcess

    /// Starts `Tests/Interop/<name>` with `arguments`, and `environment` besides the test's own.
    package init(_ name: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        process = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: environment.map { "\($0.key)=\($0.value)" } + ["python3", Self.directory.appendingPathComponent(name).path]
                + arguments
        )
    }

    /// The first line the script prints (a server's port); what it printed when it exits first (a missing package).
    /// Read to its newline: a line may come in more than one write (Python's `print` of several values did).
    package func firstLine() -> String {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = process.output.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// Everything the script prints, once it has exited (within `timeout`); throws when it failed. It waits without holding a thread:
    /// a blocking read would take one of the few threads that also run the service the script talks to.
    package func result(timeout: Duration = .seconds(60)) async throws -> String {
        let output = ProcessOutput()
        let gathering = process.gather(into: output)
        try await waitUntil(timeout: timeout) { !process.isRunning }
        await gathering.value
        let text = output.contents
        try #require(process.terminationStatus == 0, "the script failed: \(text)")
        return text
    }

    /// Runs a server script (with `arguments`) for the duration of `body`, passing the port it printed.
    package static func serving<T: Sendable>(
        _ name: String,
        arguments: [String] = [],
        hint: String,
        _ body: (Int) async throws -> T
    ) async throws -> T {
        let script = try InteropScript(name, arguments: arguments)
        defer { script.process.send(SIGTERM) }
        let port = try #require(Int(script.firstLine()), "\(name) did not start: \(hint)")
        return try await body(port)
    }
}

/// What a child process wrote so far, gathered by a readability handler.
package final class ProcessOutput: Sendable {
    private let text = Mutex("")

    package init() {}

    package func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }

    package var contents: String { text.withLock { $0 } }
}
