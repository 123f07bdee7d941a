import Foundation
import Hummingbird
import NIOCore
import Testing
import TransferdTestOrigins
import TransferdTestSupport

/// The README's walkthroughs run as written, command by command, against a live service: the transferctl block and
/// the curl block, with a local origin standing in for example.com. `docs/development.md` says which substitutions
/// the test makes, and why each is needed.
@Suite struct WalkthroughTests {
    /// What every `GET` of the stand-in origin answers: big enough that a download at `--limit-rate 2M` still runs
    /// when the walkthrough suspends it a few commands later.
    static let resourceSize = 32 << 20

    @Test func theREADMEsWalkthroughsRunAgainstALiveService() async throws {
        let readme = try MarkdownDocument.named("README.md")
        let blocks = readme.codeBlocks { $0 == "A walkthrough" || $0 == "The same with curl (the raw API)" }.filter { $0.language == "sh" }
        #expect(blocks.count == 2)
        let commands = blocks.flatMap { Self.commands(of: $0.lines) }
        #expect(commands.count > 20)
        try await Self.standInOrigin { origin in
            try await TestService.with { api in
                let scratch = DataDirectories.temporary()
                try "id,total\n1,9.99\n".write(toFile: scratch + "/report.csv", atomically: true, encoding: .utf8)
                var assignments: [String] = []
                for command in commands where !command.hasPrefix("swift build") {
                    let script = Self.substitute(command, service: api.baseURL, origin: "http://127.0.0.1:\(origin)")
                    if let content = script.firstMatch(of: /sessions\/([^\/]+)\/tasks\/(\d+)\/content/) {
                        // A reader who follows the steps fetches content once step 3 says the task completed.
                        _ = try await api.waitForCompletion(String(content.output.1), Int(content.output.2)!)
                    }
                    let result = try await Self.run(
                        assignments + [script],
                        in: scratch,
                        followsUntilInterrupted: command.contains("Ctrl-C")
                    )
                    #expect(result.passed, "`\(command)` exited \(result.status):\n\(result.output)")
                    #expect(!result.output.contains("urn:transferd:problem:"), "`\(command)` was refused:\n\(result.output)")
                    if script.firstMatch(of: /^(export )?[A-Z_]+=/) != nil { assignments.append(script) }
                }
                let tasks = try await api.tasks("com.example.bg")
                #expect(tasks.first?.state == "completed", "the curl walkthrough's download did not complete")
            }
        }
    }

    /// The commands of a block: its lines joined where they end in `\`, without blank and comment lines.
    static func commands(of lines: [String]) -> [String] {
        var commands: [String] = []
        var pending = ""
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            if trimmed.hasSuffix("\\") {
                pending += trimmed.dropLast().trimmingCharacters(in: .whitespaces) + " "
            } else {
                commands.append(pending + trimmed)
                pending = ""
            }
        }
        return commands
    }

    /// The command with the walkthrough's placeholders made real: the service's address and admin key, and the
    /// stand-in origin for example.com.
    static func substitute(_ command: String, service: String, origin: String) -> String {
        let address = service.replacingOccurrences(of: "http://", with: "")
        return
            command
            .replacingOccurrences(of: "http://127.0.0.1:8080", with: service)
            .replacingOccurrences(of: "localhost:8080", with: address)
            .replacingOccurrences(of: "trd_…", with: TestService.apiKey)
            .replacing(/https:\/\/([a-z]+\.)?example\.com/, with: origin)
    }

    /// How one command ended.
    struct Outcome {
        var status: Int32
        var output: String
        var followedUntilInterrupted: Bool
        var passed: Bool { status == 0 || (followedUntilInterrupted && status == 124) }
    }

    /// Runs `lines` (the shell assignments so far, then the command) with bash in `directory`, `transferctl` found
    /// beside the tests. A command that follows until Ctrl-C is sent SIGINT after two seconds (`timeout`'s 124).
    static func run(_ lines: [String], in directory: String, followsUntilInterrupted: Bool) async throws -> Outcome {
        var environment = ProcessInfo.processInfo.environment
        let binaries = URL(fileURLWithPath: TransferctlProcess.path).deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        // `set -a`: the walkthrough's variables reach a command run under `timeout` too.
        var script = "set -a\n" + lines.dropLast().joined(separator: "\n") + "\ncd '\(directory)' || exit 99\n"
        let command = lines.last ?? ""
        script += followsUntilInterrupted ? "timeout -s INT 2 bash -c \(Self.quoted(command))\n" : command + "\n"
        let (status, output) = try await ChildProcess.run("/bin/bash", ["-c", script], environment: environment, timeout: .seconds(120))
        return Outcome(status: status ?? -1, output: output, followedUntilInterrupted: followsUntilInterrupted)
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// An origin on 127.0.0.1 that answers every `GET` with `resourceSize` bytes and every `POST` or `PUT` with 200.
    static func standInOrigin<T: Sendable>(_ body: (Int) async throws -> T) async throws -> T {
        let router = Router()
        router.get("**") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .eTag: "\"walkthrough\""],
                body: .init(byteBuffer: ByteBuffer(repeating: 0x2A, count: resourceSize))
            )
        }
        router.post("**") { _, _ in Response(status: .ok) }
        router.put("**") { _, _ in Response(status: .ok) }
        return try await LoopbackServer.run(router, port: 0, make: { $0 }, body)
    }

    @Test func blocksAreReadAsAShellReadsThem() {
        let commands = Self.commands(of: [
            "# 1. A step", "curl -s -X PUT localhost:8080/v1/sessions/a \\", "     -d '{}'", "", "transferctl ls   # a comment",
        ])
        #expect(commands == ["curl -s -X PUT localhost:8080/v1/sessions/a -d '{}'", "transferctl ls   # a comment"])
        #expect(
            Self.substitute(
                "curl https://example.com/a.bin localhost:8080 trd_…",
                service: "http://127.0.0.1:9",
                origin: "http://127.0.0.1:7"
            )
                == "curl http://127.0.0.1:7/a.bin 127.0.0.1:9 \(TestService.apiKey)"
        )
    }
}
