import ArgumentParser
import NIOHTTP1

/// The options of `cancel`, `suspend` and `resume`: the tasks, their session, and `--json`.
struct TaskActionOptions: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The tasks: N (in the session of -s) or SESSION/N.")
    var tasks: [TaskReference]

    @Option(name: .shortAndLong, help: "The session of tasks given as N.")
    var session = "transferctl"

    @Flag(help: "Print each task's JSON as the API answers it, one per line.")
    var json = false

    /// Asks transferd to `action` each task (`POST …/tasks/N/<action>`), printing each task as it then is.
    func perform(_ action: String) async throws {
        try await connection.run { client in
            for task in tasks {
                let reply = try await client.send(.POST, task.path(in: session) + "/" + action)
                if json {
                    Console.line(reply.text)
                } else {
                    Console.line("\(task.description(in: session)): \(try reply.decode(TaskView.self).status)")
                }
            }
        }
    }
}

/// `transferctl cancel`.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel tasks: they complete with the error `cancelled` (a transferring one once it has stopped)."
    )

    @OptionGroup var options: TaskActionOptions

    func run() async throws { try await options.perform("cancel") }
}

/// `transferctl suspend`.
struct SuspendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Suspend tasks: a transfer stops and keeps its partial file, to continue on resume."
    )

    @OptionGroup var options: TaskActionOptions

    func run() async throws { try await options.perform("suspend") }
}

/// `transferctl resume`.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume suspended tasks: they are queued again and continue where they stopped."
    )

    @OptionGroup var options: TaskActionOptions

    func run() async throws { try await options.perform("resume") }
}
