import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl fetch`: background fetch schedules, recurring conditional downloads of a URL.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Schedule, list, pause, resume and remove recurring conditional downloads (background fetch).",
        subcommands: [Add.self, List.self, Remove.self, Pause.self, Resume.self],
        defaultSubcommand: List.self
    )

    /// `transferctl fetch add`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch a URL every --every seconds; each run reports newData, noData or failed.",
            discussion: """
                Each run is a download task that sends If-None-Match and If-Modified-Since from the latest version \
                kept: a 304 or unchanged bytes are noData, new bytes a new version. The first run is at once.
                """
        )

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .shortAndLong, help: "The session to use (created on first use).")
        var session = "transferctl"

        @Argument(help: "The URL to fetch.")
        var url: String

        @Option(help: "Seconds between runs, at least 60.")
        var every: Int

        @Option(help: "How many versions with new data keep their content.")
        var keep: Int?

        @Option(help: "Delay each run by up to this fraction of the interval (0 to 1).")
        var jitter: Double?

        @Option(help: "Run only inside this time of day, HH:MM-HH:MM in UTC.")
        var window: String?

        @Option(name: .customLong("header"), help: "A header sent with every run, 'Name: value' (repeatable).")
        var headers: [String] = []

        @Flag(help: "Print the API's JSON.")
        var json = false

        /// The body of `POST …/fetches`.
        struct Body: Encodable {
            var url: String
            var interval: Int
            var keepVersions: Int?
            var jitter: Double?
            var window: String?
            var headers: [String: String]?
        }

        func validate() throws {
            try HeaderArguments.validate(headers)
        }

        func run() async throws {
            let body = Body(
                url: url,
                interval: every,
                keepVersions: keep,
                jitter: jitter,
                window: window,
                headers: HeaderArguments.fields(headers)
            )
            try await connection.run { client in
                _ = try await TaskFollower.openSession(session, client: client)
                let reply = try await client.send(.POST, "/v1/sessions/\(session)/fetches", json: body)
                if json { return Console.line(reply.text) }
                let fetch = try reply.decode(APIFetch.self)
                Console.line(
                    "\(session)/\(fetch.id): every \(Units.duration(Double(fetch.interval))), first run \(Self.moment(fetch.nextRunAt))"
                )
            }
        }

        static func moment(_ date: Date) -> String {
            date.formatted(.iso8601)
        }
    }

    /// `transferctl fetch ls`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List a session's fetch schedules: state, interval, last result, next run and URL."
        )

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .shortAndLong, help: "The session.")
        var session = "transferctl"

        @Flag(help: "Print the API's JSON.")
        var json = false

        func run() async throws {
            try await connection.run { client in
                let reply = try await client.get("/v1/sessions/\(session)/fetches")
                if json { return Console.line(reply.text) }
                var table = Table([
                    .init(title: "ID"), .init(title: "STATE"), .init(title: "EVERY", alignRight: true), .init(title: "LAST"),
                    .init(title: "NEXT RUN"), .init(title: "URL", flexible: true),
                ])
                for fetch in try reply.decode(APIFetchList.self).items {
                    let last = fetch.lastRun.map { $0.result.rawValue } ?? "-"
                    let lastTone: StyledLine.Tone =
                        switch fetch.lastRun?.result {
                        case .failed: .failure
                        case .newData: .success
                        default: .plain
                        }
                    table.rows.append([
                        Table.Cell(fetch.id), Table.Cell(fetch.state.rawValue, fetch.state == .paused ? .warning : .plain),
                        Table.Cell(Units.duration(Double(fetch.interval))), Table.Cell(last, lastTone),
                        Table.Cell(fetch.state == .paused ? "-" : Add.moment(fetch.nextRunAt)), Table.Cell(fetch.url),
                    ])
                }
                table.print()
            }
        }
    }

    /// `transferctl fetch rm`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a fetch schedule.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .shortAndLong, help: "The session.")
        var session = "transferctl"

        @Argument(help: "The schedule's id (fetch_…).")
        var id: String

        func run() async throws {
            try await connection.run { client in
                _ = try await client.send(.DELETE, "/v1/sessions/\(session)/fetches/\(id)")
                Console.line("\(session)/\(id): removed")
            }
        }
    }

    /// `transferctl fetch pause`.
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause a fetch schedule (a run under way finishes).")

        @OptionGroup var change: Change

        func run() async throws { try await change.send(paused: true) }
    }

    /// `transferctl fetch resume`.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a fetch schedule (at once if runs were missed).")

        @OptionGroup var change: Change

        func run() async throws { try await change.send(paused: false) }
    }

    /// What pause and resume take, and how they send it.
    struct Change: ParsableArguments {
        @OptionGroup var connection: ConnectionOptions

        @Option(name: .shortAndLong, help: "The session.")
        var session = "transferctl"

        @Argument(help: "The schedule's id (fetch_…).")
        var id: String

        @Flag(help: "Print the API's JSON.")
        var json = false

        func send(paused: Bool) async throws {
            try await connection.run { client in
                let reply = try await client.send(.PATCH, "/v1/sessions/\(session)/fetches/\(id)", json: ["paused": paused])
                if json { return Console.line(reply.text) }
                let fetch = try reply.decode(APIFetch.self)
                let next = fetch.state == .paused ? "" : ", next run \(Add.moment(fetch.nextRunAt))"
                Console.line("\(session)/\(id): \(fetch.state.rawValue)\(next)")
            }
        }
    }
}
