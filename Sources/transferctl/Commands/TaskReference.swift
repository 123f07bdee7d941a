import ArgumentParser
import NIOHTTP1

/// A task named on the command line: `7` (in the session of `-s`) or `session/7`.
struct TaskReference: ExpressibleByArgument, Sendable {
    var session: String?
    var identifier: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = parts.last, let identifier = Int(last), identifier > 0, parts.count <= 2 else { return nil }
        if parts.count == 2 {
            guard !parts[0].isEmpty else { return nil }
            session = String(parts[0])
        }
        self.identifier = identifier
    }

    static var defaultValueDescription: String { "N or SESSION/N" }

    /// The task's path in the API, its session `session` unless the reference names one.
    func path(in session: String) -> String {
        "/v1/sessions/\(self.session ?? session)/tasks/\(identifier)"
    }

    /// `session/identifier`.
    func description(in session: String) -> String {
        "\(self.session ?? session)/\(identifier)"
    }
}
