import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/files`: the tenant's staged files, for upload tasks, with how far each upload has come.
struct StagedFilesPage: Sendable {
    let gate: DashboardGate
    let stagedFiles: StagedFileService

    /// How many files the page lists; the API pages through them all.
    static let limit = 500

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("files", use: gate.page(page))
        return routes
    }

    @Sendable func page(request: Request, context: AppRequestContext, signedIn: DashboardSignIn) async throws -> Response {
        let files = try await stagedFiles.list(tenantID: signedIn.principal.tenantID, after: 0, limit: Self.limit)
        let rows: [[String: Any]] = files.map { file in
            var row: [String: Any] = [
                "id": file.publicId, "state": file.isComplete ? "complete" : "uploading",
                "fraction": file.uploadLength > 0 ? Double(file.uploadOffset) / Double(file.uploadLength) : 1,
                "bytes": "\(DisplayFormat.size(file.uploadOffset)) of \(DisplayFormat.size(file.uploadLength))",
                "name": file.metadata?["filename"] ?? "", "created": DisplayFormat.timeValues(file.createdAt),
                "expires": DisplayFormat.timeValues(file.expiresAt),
            ]
            if file.isComplete { row["content"] = gate.contentLink("/v1/files/\(file.publicId)/content", for: signedIn) }
            row["sha256"] = file.sha256
            return row
        }
        return gate.pages.render("files", .init(title: "Staged files", signedIn: signedIn), ["files": rows, "hasFiles": !rows.isEmpty])
    }
}
