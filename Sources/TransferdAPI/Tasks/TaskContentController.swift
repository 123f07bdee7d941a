import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TransferdDomain
import TransferdServices

/// The bytes of a task: `…/tasks/{n}/content`, a download's content (with single ranges), and
/// `…/tasks/{n}/response-body`, the kept body of an upload's reply. Content in a bucket (the content store's, or a
/// tenant's) streams from it, or with `?redirect=true` is handed over as a short-lived presigned URL.
struct TaskContentController: Sendable {
    /// How long a presigned URL of `?redirect=true` works, in seconds.
    static let redirectLifetime = 300

    let tasks: TasksController
    let kept: TaskContent
    let responder = ContentResponder()

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(":taskIdentifier/content") { try await serve($0, $1, includeBody: true) }
        routes.head(":taskIdentifier/content") { try await serve($0, $1, includeBody: false) }
        routes.delete(":taskIdentifier/content", use: remove)
        routes.get(":taskIdentifier/response-body", use: reply)
        return routes
    }

    private func serve(_ request: Request, _ context: AppRequestContext, includeBody: Bool) async throws -> Response {
        try await serve(try await tasks.task(context), request, context, includeBody: includeBody)
    }

    /// A download's content, from the data directory or a bucket; `?redirect=true` hands a bucket's object over as a
    /// presigned URL.
    func serve(_ task: TransferTask, _ request: Request, _ context: AppRequestContext, includeBody: Bool) async throws -> Response {
        let file = try Self.finishedFile(of: task)
        let filename = URL(string: task.originalRequest.url)?.lastPathComponent ?? ""
        if let object = file.object, request.uri.queryParameters["redirect"] == "true" {
            let url = try await kept.presignedURL(
                of: object,
                tenantID: context.tenantID,
                expires: Self.redirectLifetime,
                responseHeaders: [
                    ("response-content-disposition", "attachment; filename=\"\(ContentResponder.safeFilename(filename))\""),
                    ("response-content-type", file.contentType ?? "application/octet-stream"),
                ],
                logger: context.logger
            )
            return try responder.redirect(to: url, context: context)
        }
        let content = ContentResponder.Content(
            source: try await kept.content(of: task, file, tenantID: context.tenantID, logger: context.logger),
            size: file.size,
            sha256: file.sha256,
            contentType: file.contentType,
            filename: filename
        )
        return try await responder.respond(content, to: request, context: context, includeBody: includeBody)
    }

    @Sendable func reply(request: Request, context: AppRequestContext) async throws -> Response {
        let task = try await tasks.task(context)
        guard let reply = task.transfer.upload?.reply else {
            throw Problem.notFound("Task \(task.taskIdentifier) has no response body: only uploads keep one, once the server has answered.")
        }
        let content = ContentResponder.Content(
            source: try await kept.reply(of: task, reply, tenantID: context.tenantID, logger: context.logger),
            size: reply.size,
            contentType: reply.contentType,
            filename: "task-\(task.taskIdentifier)-response-body"
        )
        var response = try await responder.respond(content, to: request, context: context, includeBody: true)
        response.headers[.replyTruncated] = String(reply.truncated)
        return response
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let found = try await tasks.task(context)
        _ = try Self.finishedFile(of: found)
        try await tasks.tasks.removeContent(of: found)
        return .noContent
    }

    private static func finishedFile(of task: TransferTask) throws(Problem) -> StoredFile {
        guard let file = task.transfer.download?.file else {
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

extension HTTPField.Name {
    /// On `…/response-body`: whether the server sent more than was kept.
    static let replyTruncated = Self("Transferd-Response-Body-Truncated")!
}
