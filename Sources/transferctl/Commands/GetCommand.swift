import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl get`: downloads through transferd, followed live, and saved locally.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download URLs through transferd, follow them live, and save them.",
        discussion: """
            Enqueues one download task per URL in the session (created on first use), then follows them through the \
            session's live event stream: a progress bar per task on a terminal (bytes, rate, ETA), plain lines \
            otherwise. With -o or -O each finished download is saved locally, continued with a Range request if \
            the connection breaks, and checked against its SHA-256. --mirror names other sources of one URL, fetched \
            beside it. With --to s3://storage/key the download goes \
            into a bucket of one of the tenant's stores instead (with several URLs, --to names a prefix ending in \
            `/`, and each object is named after its URL). Exits 0 only if every task succeeded; each failure is \
            named with its error code.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The http or https URLs to download.")
    var urls: [String]

    @Option(name: .shortAndLong, help: "The session to use (created on first use).")
    var session = "transferctl"

    @Option(name: .short, help: ArgumentHelp("Save to this file (with several URLs: into this existing directory).", valueName: "path"))
    var output: String?

    @Flag(name: .customShort("O"), help: "Save each download in the current directory, named after its URL.")
    var remoteName = false

    @Option(help: ArgumentHelp("Download into an object of one of the tenant's stores instead.", valueName: "s3://storage/key"))
    var to: String?

    @Option(help: "Parallel range requests per download (1-16); with --mirror, per source.")
    var connections: Int?

    @Option(
        name: .customLong("mirror"),
        help: ArgumentHelp("Another URL of the same content, fetched beside the one URL (repeat it for more; up to 15).", valueName: "url")
    )
    var mirrors: [String] = []

    @Option(help: "The SHA-256 the download must have (64 hex digits); a mismatch fails the task.")
    var sha256: String?

    @Option(help: "The tasks' priority, 0 to 1.")
    var priority: Double?

    @Option(help: "Each task's bandwidth limit in bytes per second, with an optional K, M or G (1024s): 512K, 2M.")
    var limitRate: ByteRate?

    @Flag(help: "Enqueue and print the tasks' references (session/identifier), without following them.")
    var noWait = false

    func validate() throws {
        guard !(output != nil && remoteName) else { throw ValidationError("-o and -O cannot be used together") }
        guard !(noWait && (output != nil || remoteName)) else { throw ValidationError("--no-wait does not save: leave out -o and -O") }
        guard mirrors.isEmpty || urls.count == 1 else { throw ValidationError("--mirror names other sources of one URL: give one") }
        guard mirrors.isEmpty || to == nil else {
            throw ValidationError("--mirror applies to downloads into the data directory: leave out --to")
        }
        if let output, urls.count > 1, !Self.isDirectory(output) {
            throw ValidationError("with several URLs, -o must name an existing directory")
        }
        if let to {
            guard output == nil, !remoteName else { throw ValidationError("--to writes into a bucket: leave out -o and -O") }
            guard (connections ?? 1) == 1 else { throw ValidationError("a download into a bucket takes one connection") }
            let (_, key) = try Self.object(to)
            guard urls.count == 1 || key.isEmpty || key.hasSuffix("/") else {
                throw ValidationError("with several URLs, --to must name a prefix ending in `/`: s3://storage/prefix/")
            }
        }
    }

    /// `s3://storage/key` split into the store's name and the key (empty, or a prefix ending in `/`, for several URLs).
    static func object(_ uri: String) throws -> (storage: String, key: String) {
        guard uri.hasPrefix("s3://") else { throw ValidationError("--to must be s3://storage/key") }
        let rest = uri.dropFirst("s3://".count)
        let storage = rest.prefix { $0 != "/" }
        guard !storage.isEmpty else { throw ValidationError("--to must name a store: s3://storage/key") }
        return (String(storage), String(rest.dropFirst(storage.count + 1)))
    }

    /// Where the download of `url` goes with --to: the key given, or, under a prefix, the URL's last path component
    /// (numbered after one that an earlier URL of this run took).
    private func destination(for url: String, besides taken: inout Set<String>) throws -> NewTask.Destination? {
        guard let to else { return nil }
        let (storage, key) = try Self.object(to)
        guard key.isEmpty || key.hasSuffix("/") else { return .init(storage: storage, key: key) }
        return .init(storage: storage, key: key + Self.fileName(FollowedTransfer.name(of: url), besides: &taken))
    }

    /// The task as `POST …/tasks` takes it.
    struct NewTask: Encodable {
        struct Checksum: Encodable {
            var algorithm = "sha256"
            var value: String
        }

        var kind = "download"
        var url: String
        var connections: Int?
        var mirrors: [String]?
        var priority: Double?
        var checksum: Checksum?
        var maxBytesPerSecond: Int64?
        var destination: Destination?

        struct Destination: Encodable {
            var storage: String
            var key: String
        }
    }

    func run() async throws {
        try await connection.run { client in
            let opened = try await TaskFollower.openSession(session, client: client)
            var keys: Set<String> = []
            let tasks = try urls.map {
                NewTask(
                    url: $0,
                    connections: connections,
                    mirrors: mirrors.isEmpty ? nil : mirrors,
                    priority: priority,
                    checksum: sha256.map { .init(value: $0) },
                    maxBytesPerSecond: limitRate?.bytesPerSecond,
                    destination: try destination(for: $0, besides: &keys)
                )
            }
            let created = try await client.send(.POST, "/v1/sessions/\(session)/tasks", json: ["tasks": tasks]).decode(APITaskBatch.self)
                .tasks
            if noWait {
                for task in created { Console.line("\(session)/\(task.taskIdentifier)") }
                return
            }
            let follower = TaskFollower(client: client, session: session)
            let display = TransferDisplay()
            let transfers = try await display.during {
                var transfers = try await follower.follow(created, after: Int64(opened.lastEventSequence), display: display)
                if output != nil || remoteName {
                    try await save(&transfers, of: created, client: client, follower: follower, display: display)
                }
                return transfers
            }
            try Self.report(transfers)
        }
    }

    /// Saves each successful download where -o or -O says.
    private func save(
        _ transfers: inout [FollowedTransfer],
        of created: [APITask],
        client: APIConnection,
        follower: TaskFollower,
        display: TransferDisplay
    ) async throws {
        let saver = ContentSaver(client: client)
        var names: Set<String> = []
        for position in transfers.indices where transfers[position].phase == .succeeded {
            let task = try await follower.task(created[position].taskIdentifier)
            let path = destination(named: Self.fileName(transfers[position].name, besides: &names))
            // The save has a rate of its own, measured here.
            (transfers[position].phase, transfers[position].done, transfers[position].meter) = (.saving, 0, RateMeter())
            do {
                try await saver.save(session: session, task: task, to: path) { saved in
                    transfers[position].done = saved
                    transfers[position].meter.record(saved, at: Date())
                    display.show(transfers)
                } notice: { notice in
                    if !Console.isTerminal { Console.line(notice) }
                }
                transfers[position].done = task.file.map { Int64($0.size) } ?? transfers[position].done
                transfers[position].phase = .succeeded
                display.show(transfers)
                if !Console.isTerminal { Console.line("\(transfers[position].reference): saved \(path)") }
            } catch let failure as CommandFailure {
                transfers[position].phase = .failed(code: "notSaved", message: failure.message)
            }
        }
    }

    /// Where a download is saved: -o's file, or `name` in -o's directory or (-O) the current one.
    private func destination(named name: String) -> String {
        if let output, !Self.isDirectory(output) { return output }
        return URL(fileURLWithPath: output ?? ".").appendingPathComponent(name).path
    }

    /// A file name for a URL's last path component: `download` for one that names no file (`..`), and `.1`,
    /// `.2`, … after one that an earlier download of this run took.
    static func fileName(_ name: String, besides taken: inout Set<String>) -> String {
        let base = [".", ".."].contains(name) || name.isEmpty ? "download" : name
        var candidate = base
        var number = 0
        while taken.contains(candidate) {
            number += 1
            candidate = "\(base).\(number)"
        }
        taken.insert(candidate)
        return candidate
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Names each failure on standard error; fails when there was one.
    static func report(_ transfers: [FollowedTransfer]) throws {
        var failures = 0
        for transfer in transfers {
            guard case .failed(let code, let message) = transfer.phase else { continue }
            failures += 1
            Console.error("\(transfer.reference) failed: \(code): \(message)")
        }
        guard failures == 0 else {
            Console.error(CommandFailure.transfersFailed(count: failures).message)
            throw ExitCode(CommandFailure.transfersFailed(count: failures).exitStatus)
        }
    }
}
