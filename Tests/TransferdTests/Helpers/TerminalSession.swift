import Foundation
import Testing

/// A command running in a pseudo-terminal of its own: a detached tmux session (tmux from Debian) of a given size,
/// on a tmux server of its own, read with `capture-pane` as a person would see it.
struct TerminalSession {
    let socket = "transferd-test-\(UUID().uuidString.prefix(8))"
    let name = "cli"

    /// Starts `command` (a shell command line) in a `width`×`height` terminal in `directory`.
    init(_ command: String, width: Int = 120, height: Int = 30, directory: String = NSTemporaryDirectory()) async throws {
        // The pane stays after the command ends, so that its last screen and its status can be read.
        try await tmux(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            String(width),
            "-y",
            String(height),
            "-c",
            directory,
            "\(command); echo \"[exit $?]\"; sleep 3600"
        )
    }

    /// The screen as text (`colors`: with its escape sequences).
    func screen(colors: Bool = false) async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", name] + (colors ? ["-e"] : []))
    }

    /// Waits until the screen shows something `condition` accepts, and returns it.
    @discardableResult
    func waitForScreen(timeout: Duration = .seconds(60), colors: Bool = false, _ condition: (String) -> Bool) async throws -> String {
        var screen = ""
        do {
            try await waitUntil(timeout: timeout) {
                screen = try await self.screen(colors: colors)
                return condition(screen)
            }
        } catch {
            Issue.record("the terminal showed:\n\(screen)")
            throw error
        }
        return screen
    }

    /// The command's exit status, once it has ended.
    func exitStatus(timeout: Duration = .seconds(120)) async throws -> Int? {
        let screen = try await waitForScreen(timeout: timeout) { $0.contains("[exit ") }
        guard let range = screen.range(of: #"\[exit (\d+)\]"#, options: .regularExpression) else { return nil }
        return Int(screen[range].dropFirst(6).dropLast())
    }

    /// Types `keys` (tmux key names, such as `C-c`).
    func send(keys: String) async throws {
        try await tmux("send-keys", "-t", name, keys)
    }

    /// Ends the session and its server.
    func close() async {
        _ = try? await tmux("kill-server")
    }

    /// The test process's environment without its color settings (`swift test` sets `NO_COLOR`): a command in
    /// the terminal sees only those its command line sets, as in a person's shell.
    private static let environment = ProcessInfo.processInfo.environment.filter { !["NO_COLOR", "FORCE_COLOR"].contains($0.key) }

    @discardableResult
    private func tmux(_ arguments: String...) async throws -> String {
        try await tmux(arguments)
    }

    @discardableResult
    private func tmux(_ arguments: [String]) async throws -> String {
        try await ChildProcess.run("/usr/bin/tmux", ["-L", socket] + arguments, environment: Self.environment).output
    }

    /// Runs `body` with a terminal running `command`, closed after.
    static func with<T>(
        _ command: String,
        width: Int = 120,
        height: Int = 30,
        directory: String = NSTemporaryDirectory(),
        _ body: (TerminalSession) async throws -> T
    ) async throws -> T {
        let session = try await TerminalSession(command, width: width, height: height, directory: directory)
        do {
            let result = try await body(session)
            await session.close()
            return result
        } catch {
            await session.close()
            throw error
        }
    }
}
