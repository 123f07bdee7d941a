import ArgumentParser
import NIOHTTP1
import TransferdClient

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
                    Console.line("\(task.description(in: session)): \(try reply.decode(APITask.self).status)")
                }
            }
        }
    }
}

/// What `cancel`, `suspend` and `resume` each do: the API's action of that name, and its help.
protocol TaskAction {
    static var name: String { get }
    static var abstract: String { get }
}

/// `transferctl cancel`, `suspend` or `resume`.
struct TaskActionCommand<Action: TaskAction>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: Action.name, abstract: Action.abstract) }

    @OptionGroup var options: TaskActionOptions

    func run() async throws { try await options.perform(Action.name) }
}

enum Cancel: TaskAction {
    static let name = "cancel"
    static let abstract = "Cancel tasks: they complete with the error `cancelled` (a transferring one once it has stopped)."
}

enum Suspend: TaskAction {
    static let name = "suspend"
    static let abstract = "Suspend tasks: a transfer stops and keeps its partial file, to continue on resume."
}

enum Resume: TaskAction {
    static let name = "resume"
    static let abstract = "Resume suspended tasks: they are queued again and continue where they stopped."
}
