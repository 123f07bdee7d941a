import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/files`: files staged for upload tasks. Speaks tus 1.0.0 (core, creation, creation-with-upload,
/// expiration, checksum, termination), and takes plain uploads too: `POST` or `PUT /v1/files/{id}` with the
/// whole body and its `Content-Length`.
struct FilesController: Sendable {
    static let extensions = "creation,creation-with-upload,expiration,checksum,termination"
    static let offsetContentType = "application/offset+octet-stream"

    let store: StagedFileService
    let responder = ContentResponder()

    /// What identifies a repeated file creation for `Idempotency-Key`: the headers that describe the file (its
    /// bytes may be huge).
    static let describingHeaders: [HTTPField.Name] = [.tusResumable, .uploadLength, .uploadMetadata, .contentLength, .contentType]

    /// The controller's routes, creation behind `idempotency`, relative to where the router mounts them.
    func endpoints(idempotency: IdempotencyMiddleware) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.add(middleware: TusResumableMiddleware())
        routes.on("", method: .options, use: options)
        routes.group().add(middleware: idempotency).post(use: create)
        routes.get(use: list)
        routes.head(":fileID", use: offset)
        routes.patch(":fileID", use: append)
        routes.delete(":fileID", use: remove)
        routes.get(":fileID", use: show)
        routes.put(":fileID", use: put)
        routes.get(":fileID/content") { try await content($0, $1, includeBody: true) }
        routes.head(":fileID/content") { try await content($0, $1, includeBody: false) }
        return routes
    }

    /// tus discovery: the version, extensions, size limit and checksum algorithms.
    @Sendable func options(request: Request, context: AppRequestContext) async throws -> Response {
        Response(
            status: .noContent,
            headers: [
                .tusVersion: TusResumableMiddleware.version,
                .tusExtension: Self.extensions,
                .tusMaxSize: String(store.limits.maximumSize),
                .tusChecksumAlgorithm: UploadChecksum.Algorithm.allCases.map(\.rawValue).joined(separator: ","),
            ]
        )
    }

    /// tus creation (with `Tus-Resumable`), with the first bytes when the body is `application/offset+octet-stream`;
    /// otherwise a plain upload of the whole body.
    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<FileResponse> {
        guard request.headers[.tusResumable] != nil else { return try await uploadWhole(request, context: context, publicID: nil) }
        return try await createUpload(request, context: context)
    }

    /// tus creation, with the first bytes when the body is `application/offset+octet-stream`.
    private func createUpload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<FileResponse> {
        if request.headers[.uploadDeferLength] != nil {
            throw Problem.invalidField("Upload-Defer-Length", "is not supported; send Upload-Length")
        }
        guard let lengthText = request.headers[.uploadLength] else { throw Problem.badRequest("`Upload-Length` is required.") }
        guard let length = Int64(lengthText) else { throw Problem.invalidField("Upload-Length", "must be a non-negative integer") }
        let metadata = try request.headers[.uploadMetadata].map { header throws(DomainError) in try TusMetadata.parse(header) }
        var file = try await store.create(publicID: nil, tenantID: context.tenantID, length: length, metadata: metadata, contentType: nil)
        if request.headers[.contentType] == Self.offsetContentType {
            file = try await store.append(request.body, length: contentLength(request), to: file, at: 0, checksum: try checksum(request))
        }
        var response = fileResponse(file)
        response.headers[.uploadOffset] = String(file.uploadOffset)
        return response
    }

    /// A plain upload with a client-chosen id.
    @Sendable func put(request: Request, context: AppRequestContext) async throws -> EditedResponse<FileResponse> {
        let publicID = try ClientIdentifier.validate(context.parameters.get("fileID") ?? "", field: "id")
        return try await uploadWhole(request, context: context, publicID: publicID)
    }

    /// tus `HEAD`: where the upload stands.
    @Sendable func offset(request: Request, context: AppRequestContext) async throws -> Response {
        let file = try await file(context)
        var headers: HTTPFields = [
            .uploadOffset: String(file.uploadOffset),
            .uploadLength: String(file.uploadLength),
            .cacheControl: "no-store",
        ]
        if let metadata = file.metadata, !metadata.isEmpty {
            headers[.uploadMetadata] = metadata.sorted { $0.key < $1.key }
                .map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }
                .joined(separator: ",")
        }
        if !file.isComplete { headers[.uploadExpires] = HTTPDate.string(from: file.expiresAt) }
        return Response(status: .ok, headers: headers)
    }

    /// tus `PATCH`: appends the body at `Upload-Offset`.
    @Sendable func append(request: Request, context: AppRequestContext) async throws -> Response {
        let file = try await file(context)
        guard request.headers[.contentType] == Self.offsetContentType else {
            throw Problem.unsupportedMediaType("A PATCH body must be `\(Self.offsetContentType)`.")
        }
        guard let offsetText = request.headers[.uploadOffset] else { throw Problem.badRequest("`Upload-Offset` is required.") }
        guard let offset = Int64(offsetText), offset >= 0 else {
            throw Problem.invalidField("Upload-Offset", "must be a non-negative integer")
        }
        let updated = try await store.append(
            request.body,
            length: contentLength(request),
            to: file,
            at: offset,
            checksum: try checksum(request)
        )
        var headers: HTTPFields = [.uploadOffset: String(updated.uploadOffset)]
        if !updated.isComplete { headers[.uploadExpires] = HTTPDate.string(from: updated.expiresAt) }
        return Response(status: .noContent, headers: headers)
    }

    /// tus termination, and removal of a complete file.
    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await store.remove(try await file(context))
        return .noContent
    }

    /// The tenant's staged files, oldest first, a page at a time.
    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<FileResponse> {
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        let files = try await store.list(tenantID: context.tenantID, after: Int64(cursor), limit: limit)
        return Page(items: files.map(FileResponse.init), nextCursor: files.count == limit ? files.last.map { String($0.rowID) } : nil)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> FileResponse {
        FileResponse(try await file(context))
    }

    private func content(_ request: Request, _ context: AppRequestContext, includeBody: Bool) async throws -> Response {
        let file = try await file(context)
        guard file.isComplete else {
            throw Problem.conflict("File `\(file.publicId)` is still being uploaded (\(file.uploadOffset) of \(file.uploadLength) bytes).")
        }
        let content = ContentResponder.Content(
            source: try store.bytes(of: file),
            size: file.uploadLength,
            sha256: file.sha256,
            contentType: file.contentType,
            filename: file.metadata?["filename"] ?? file.publicId
        )
        return try await responder.respond(content, to: request, context: context, includeBody: includeBody)
    }

    /// A plain upload: the whole body, whose `Content-Length` is required up front.
    private func uploadWhole(_ request: Request, context: AppRequestContext, publicID: String?) async throws -> EditedResponse<FileResponse>
    {
        guard let lengthText = request.headers[.contentLength], let length = Int64(lengthText) else {
            throw Problem(
                .lengthRequired,
                detail: "A plain upload needs `Content-Length`; send it, or use tus for bodies of unknown length."
            )
        }
        let file = try await store.create(
            publicID: publicID,
            tenantID: context.tenantID,
            length: length,
            metadata: nil,
            contentType: request.headers[.contentType]
        )
        let stored: StagedFile
        do {
            stored = length > 0 ? try await store.append(request.body, length: length, to: file, at: 0, checksum: nil) : file
        } catch {
            // A plain upload cannot be continued: the file goes, so that the same request can be sent again.
            try? await store.remove(file)
            throw error
        }
        guard stored.isComplete else {
            throw Problem.badRequest("The body ended after \(stored.uploadOffset) of the \(length) bytes Content-Length announced.")
        }
        return fileResponse(stored)
    }

    /// 201 with the file, its `Location` and, while unfinished, its `Upload-Expires`.
    private func fileResponse(_ file: StagedFile) -> EditedResponse<FileResponse> {
        var headers: HTTPFields = [.location: "/v1/files/\(file.publicId)"]
        if !file.isComplete { headers[.uploadExpires] = HTTPDate.string(from: file.expiresAt) }
        return EditedResponse(status: .created, headers: headers, response: FileResponse(file))
    }

    /// The file the path names, among the requesting tenant's.
    private func file(_ context: AppRequestContext) async throws -> StagedFile {
        try await store.find(context.parameters.get("fileID") ?? "", tenantID: context.tenantID)
    }

    /// The body's declared length, which an append must have room for before its first byte is taken.
    private func contentLength(_ request: Request) -> Int64? {
        request.headers[.contentLength].flatMap { Int64($0) }
    }

    private func checksum(_ request: Request) throws(DomainError) -> UploadChecksum? {
        try request.headers[.uploadChecksum].map { header throws(DomainError) in try UploadChecksum(header: header) }
    }
}
