import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import TransferdDomain
import TransferdEngine
import TransferdS3
import TransferdStorage
import _NIOFileSystem

/// Staged files: their rows, their bytes on disk (`files/<row id>`) or in the content store, and the rules of tus
/// appends.
///
/// Bytes stream from the request to disk in batches, never whole in memory. An append that breaks off keeps what
/// arrived (the client asks `HEAD` where to go on), unless it carried a checksum, which only whole bytes can meet;
/// when even that cannot be recorded, the file is cut back to what was, so that `Upload-Offset` and the bytes on disk
/// always agree.
///
/// A file holds its whole declared length of its tenant's quota of stored bytes from its creation. The data
/// directory's free-space floor is checked before an append takes a byte (against what it declares) and at every
/// batch it writes.
///
/// With a content store, each append streams into an object of its own (`StagedObjects`), recorded once the store
/// has all of it: an append that breaks off keeps nothing there, and the client sends those bytes again from the
/// offset `HEAD` gives. A complete file of several appends is made one object (read back once, which its SHA-256
/// needs anyway), so that uploads and `…/content` read one object, as a download's.
package struct StagedFileService: Sendable {
    package static let batchSize = 512 << 10

    let store: any Store
    package let files: FileStore
    package let limits: StagedFileLimits
    let quotas: TenantQuotas
    let disk: DiskSpace
    let metrics: ServiceMetrics
    /// The content store's client, when files go there.
    package let objects: ObjectStores
    let kept: KeptContent
    let appends = Appends()
    let clock: any WallClock

    package init(
        store: any Store,
        files: FileStore,
        objects: ObjectStores,
        limits: StagedFileLimits,
        quotas: TenantQuotas,
        disk: DiskSpace,
        metrics: ServiceMetrics,
        clock: any WallClock,
        logger: Logger
    ) {
        self.store = store
        self.files = files
        self.objects = objects
        kept = KeptContent(files: files, objects: objects, logger: logger)
        self.limits = limits
        self.quotas = quotas
        self.disk = disk
        self.metrics = metrics
        self.clock = clock
    }

    /// Creates an empty file that will be `length` bytes long; `publicID` is the client's (plain `PUT`) or generated.
    package func create(
        publicID: String?,
        tenantID: Int64,
        length: Int64,
        metadata: [String: String]?,
        contentType: String?
    ) async throws
        -> StagedFile
    {
        guard length >= 0 else { throw DomainError.invalidField("Upload-Length", requirement: "must be a non-negative integer") }
        guard length <= limits.maximumSize else {
            throw DomainError.tooLarge(
                "The file would be \(length) bytes; this service accepts at most \(limits.maximumSize) (Tus-Max-Size)."
            )
        }
        // Bytes for the content store take no room on the data directory's disk.
        if files.contentStore == nil { try disk.admit(length) }
        let now = clock.now
        let (limits, quotas, publicID) = (limits, quotas, publicID ?? UUID().uuidString.lowercased())
        let file = try await store.write { [metrics] repositories in
            guard try await repositories.stagedFiles.find(publicID: publicID, tenantID: tenantID) == nil else {
                throw DomainError.conflict("A file with the id `\(publicID)` exists already; files cannot be replaced.")
            }
            do {
                try await quotas.admit([.storedBytes: length], tenant: tenantID, repositories)
            } catch DomainError.quotaExceeded(let breach) {
                metrics.storageRefused(.stagedFile)
                throw DomainError.quotaExceeded(breach)
            }
            return try await repositories.stagedFiles.insert(
                StagedFile(
                    tenantId: tenantID,
                    publicId: publicID,
                    uploadLength: length,
                    uploadOffset: 0,
                    metadata: metadata,
                    contentType: contentType ?? metadata?["filetype"],
                    createdAt: now,
                    expiresAt: now.addingTimeInterval(limits.uploadExpiration.timeInterval),
                    objects: files.contentStore.map { _ in StagedObjects() }
                )
            )
        }
        guard file.objects != nil || FileManager.default.createFile(atPath: files.stagedPath(fileID: file.rowID), contents: nil) else {
            throw TransferError(code: .cannotWriteToFile, message: "Could not create the staged file.")
        }
        return length == 0 ? try await complete(file) : file
    }

    /// The file a public id names among the tenant's; unfinished uploads past their expiry count as gone.
    package func find(_ publicID: String, tenantID: Int64) async throws -> StagedFile {
        try ClientIdentifier.validate(publicID, field: "id")
        let file = try await store.lookup { try await $0.stagedFiles.find(publicID: publicID, tenantID: tenantID) }
        guard let file, file.isComplete || file.expiresAt > clock.now else {
            throw DomainError.notFound("No file has the id `\(publicID)`.")
        }
        return file
    }

    /// Where a whole staged file's bytes are: in the data directory, or in the content store.
    package func bytes(of file: StagedFile) throws -> StoredBytes {
        guard let whole = file.objects?.whole else { return .file(path: files.stagedPath(fileID: file.rowID)) }
        guard let client = objects.content else {
            throw DomainError.objectStorageUnavailable("This file's bytes are in a content store, and none is configured.")
        }
        return .object(client, key: whole.key, etag: whole.etag)
    }

    /// The tenant's files after row id `cursor`, oldest first; unfinished uploads past their expiry count as gone.
    package func list(tenantID: Int64, after cursor: Int64, limit: Int) async throws -> [StagedFile] {
        let now = clock.now
        return try await store.lookup { try await $0.stagedFiles.list(tenantID: tenantID, after: cursor, limit: limit, now: now) }
    }

    /// The content store's failure as the client reads it: its code when it answered, never more of it.
    static func unavailable(_ error: any Error, _ failed: String, _ then: String) -> DomainError {
        let code = (error as? S3Error).map { " (\($0.code))" } ?? ""
        return .objectStorageUnavailable("The content store \(failed)\(code); \(then).")
    }

    /// The content store's client and settings; files are bound to it only when there is one.
    func contentStore() throws -> (S3Client, ContentStoreSettings) {
        guard let client = objects.content, let settings = files.contentStore else {
            throw DomainError.objectStorageUnavailable("This file's bytes are in a content store, and none is configured.")
        }
        return (client, settings)
    }

    /// A full file: its SHA-256 is computed from what is stored, and it is kept for the retention period from now.
    func complete(_ file: StagedFile) async throws -> StagedFile {
        var file = file
        let superseded = file.objects?.appends ?? []
        let sha256 = try await file.objects != nil ? wholeObject(of: &file) : digestOfStagedFile(file)
        let now = clock.now
        file.sha256 = sha256
        file.completedAt = now
        file.expiresAt = now.addingTimeInterval(limits.retention.timeInterval)
        try await store.write { [file] in try await $0.stagedFiles.update(file) }
        for object in superseded where object != file.objects?.whole { await kept.remove(object.location) }
        return file
    }

    /// Makes the complete file one object (the only append's, or one made of them all, whose appends then go), and
    /// returns its SHA-256.
    private func wholeObject(of file: inout StagedFile) async throws -> String {
        let (client, contentStore) = try contentStore()
        let appends = file.objects?.appends ?? []
        var hasher = SHA256()
        do {
            if let only = appends.first, appends.count == 1 {
                for try await chunk in try await client.get(only.key, ifMatch: only.etag).body {
                    chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                }
                file.objects?.whole = only
            } else {
                let whole = contentStore.wholeLocation(fileID: file.rowID).key.value
                let written = try await client.upload(whole, from: client.concatenated(appends.map(\.key)), contentType: file.contentType) {
                    chunk in chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                }
                file.objects = StagedObjects(whole: StagedObjects.Object(key: whole, size: written.size, etag: written.etag))
            }
        } catch let refusal as DomainError {
            throw refusal
        } catch {
            throw Self.unavailable(error, "could not complete the file", "send the last bytes again")
        }
        return hasher.finalize().hex
    }

    /// The SHA-256 of a staged file on disk.
    private func digestOfStagedFile(_ file: StagedFile) async throws -> String {
        var hasher = SHA256()
        let path = FilePath(files.stagedPath(fileID: file.rowID))
        try await FileSystem.shared.withFileHandle(forReadingAt: path) { handle in
            for try await chunk in handle.readChunks(in: 0..<file.uploadLength, chunkLength: .mebibytes(1)) {
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            }
        }
        return hasher.finalize().hex
    }

    /// Removes a file (tus termination); one that a queued or running upload task will send is kept (409).
    package func remove(_ file: StagedFile) async throws {
        try await store.write { repositories in
            let users = try await repositories.tasks.unfinishedUploads(sending: .stagedFile(file.rowID))
            guard users.isEmpty else {
                throw DomainError.conflict(
                    "File `\(file.publicId)` is used by upload task(s) \(users.map(String.init).joined(separator: ", "))."
                )
            }
            try await repositories.stagedFiles.delete(id: file.rowID)
        }
        await kept.removeStaged(file)
    }
}
