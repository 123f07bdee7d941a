import Foundation
import GRDB
import Hummingbird
import NIOPosix

/// `/v1/sessions/{identifier}/tasks/{taskIdentifier}/content`: the downloaded bytes, with single-range requests.
struct TaskContentController: Sendable {
    let tasks: TasksController
    let files: FileStore
    let fileIO = FileIO(threadPool: .singleton)

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(":taskIdentifier/content") { try await serve($0, $1, includeBody: true) }
        group.head(":taskIdentifier/content") { try await serve($0, $1, includeBody: false) }
        group.delete(":taskIdentifier/content", use: remove)
    }

    private func serve(_ request: Request, _ context: AppRequestContext, includeBody: Bool) async throws -> Response {
        let task = try await tasks.task(context)
        let file = try Self.finishedFile(of: task)
        let etag = "\"\(file.sha256)\""
        var headers: HTTPFields = [
            .contentType: file.contentType ?? "application/octet-stream",
            .eTag: etag,
            .acceptRanges: "bytes",
        ]
        // A range applies only while the client's validator (If-Range) still matches the content.
        let rangeHeader = request.headers[.ifRange].map { $0 == etag } ?? true ? request.headers[.range] : nil
        let path = files.contentPath(taskID: task.rowID)
        switch ByteRange(header: rangeHeader, size: file.size) {
        case .unsatisfiable:
            throw Problem.rangeNotSatisfiable(size: file.size)
        case .whole:
            headers[.contentLength] = String(file.size)
            let body = includeBody && file.size > 0 ? try await fileIO.loadFile(path: path, context: context) : ResponseBody()
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentLength] = String(range.count)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
            let body =
                includeBody
                ? try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
                : ResponseBody()
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let found = try await tasks.task(context)
        _ = try Self.finishedFile(of: found)
        try await tasks.lifecycle.database.pool.write { db in
            try db.execute(sql: "UPDATE tasks SET file = NULL WHERE id = ?", arguments: [found.rowID])
        }
        files.removeContent(taskID: found.rowID)
        return .noContent
    }

    private static func finishedFile(of task: TransferTask) throws(Problem) -> StoredFile {
        guard let file = task.file else {
            let reason =
                switch (task.state, task.error) {
                case (.completed, .some(let error)): "it completed with error `\(error.code.rawValue)`"
                case (.completed, .none): "its content was deleted"
                default: "it is \(task.state.rawValue)"
                }
            throw .notFound("Task \(task.taskIdentifier) has no content: \(reason).")
        }
        return file
    }
}
