import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl put`: uploads a local file to a URL through transferd.
struct PutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Upload a file to a URL through transferd, and print the server's reply status.",
        discussion: """
            Stages FILE on transferd with tus (resuming after a broken connection), then runs an upload task that \
            sends it to URL, following both with progress, and prints the status the server replied with. Exits 0 \
            when the task succeeded; otherwise 1, naming its error (an answer of 400 or more is badServerResponse).
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The local file to send.")
    var file: String

    @Argument(help: "The http or https URL that receives it.")
    var url: String

    @Option(help: "The request's method: PUT, POST or PATCH.")
    var method = "PUT"

    @Option(help: "Send the file as multipart/form-data, in a part of this name.")
    var multipart: String?

    @Option(name: .shortAndLong, help: "The session to use (created on first use).")
    var session = "transferctl"

    func validate() throws {
        guard ["PUT", "POST", "PATCH"].contains(method) else { throw ValidationError("--method must be PUT, POST or PATCH") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ValidationError("\(file) is not a file")
        }
    }

    /// The upload task as `POST …/tasks` takes it.
    struct NewUpload: Encodable {
        struct Source: Encodable { var file: String }
        struct Multipart: Encodable { var field: String }
        var kind = "upload"
        var url: String
        var method: String
        var from: Source
        var multipart: Multipart?
    }

    func run() async throws {
        let size = try (FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
        let name = URL(fileURLWithPath: file).lastPathComponent
        try await connection.run { client in
            let opened = try await TaskFollower.openSession(session, client: client)
            let fileID = try await stage(name: name, size: size, client: client)
            let upload = NewUpload(url: url, method: method, from: .init(file: fileID), multipart: multipart.map { .init(field: $0) })
            let task = try await client.send(.POST, "/v1/sessions/\(session)/tasks", json: upload).decode(APITask.self)
            let follower = TaskFollower(client: client, session: session)
            let display = TransferDisplay()
            let transfers = try await display.during {
                try await follower.follow(
                    [task],
                    names: ["\(name) → \(FollowedTransfer.name(of: url))"],
                    after: Int64(opened.lastEventSequence),
                    display: display
                )
            }
            if let status = try await follower.task(task.taskIdentifier).response?.statusCode {
                Console.line("reply: \(status)")
            }
            try GetCommand.report(transfers)
        }
    }

    /// Stages the file with tus, showing its progress.
    private func stage(name: String, size: Int64, client: APIConnection) async throws -> String {
        let progress = TusUpload.Progress()
        let display = TransferDisplay()
        return try await display.during { [file] in
            let staging = Task {
                defer { progress.finish() }
                return try await TusUpload(client: client).upload(file, size: size, progress: progress) { notice in
                    if !Console.isTerminal { Console.line(notice) }
                }
            }
            var shown = FollowedTransfer(reference: "staging", name: name, bytes: (0, size))
            shown.phase = .transferring
            // The bytes sent are sampled, as they go out in the upload's own task.
            while !progress.isFinished {
                shown.done = progress.bytes
                shown.meter.record(shown.done, at: Date())
                display.show([shown])
                try? await Task.sleep(for: .milliseconds(100))
            }
            let id = try await staging.value
            (shown.done, shown.phase) = (size, .succeeded)
            display.show([shown])
            return id
        }
    }
}
