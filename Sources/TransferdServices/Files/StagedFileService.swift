import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import Synchronization
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
    /// The uploads of this process's appends, each its machine while a request appends to it.
    package final class Appends: Sendable {
        private let uploads = Mutex<[Int64: StagedUploadStateMachine]>([:])

        /// A request to append at `offset` to `file` as stored: the bytes to write, or the machine's refusal (another
        /// request of this process appends to it, it is complete, or it stands elsewhere).
        func begin(_ file: StagedFile, at offset: Int64) throws(DomainError) -> (from: Int64, upTo: Int64) {
            let action = uploads.withLock { uploads in
                var upload = uploads[file.rowID] ?? StagedUploadStateMachine(file)
                let action = upload.appendRequested(at: offset)
                if case .write = action { uploads[file.rowID] = upload }
                return action
            }
            switch action {
            case .write(let from, let length): return (from, length)
            case .refuse(let refusal): throw refusal
            case .record, .complete, .none: throw .conflict("File `\(file.publicId)` takes no bytes now.")
            }
        }

        /// The append `begin` let in ended with the file's bytes kept through `end`: what to record. The file takes no
        /// other append of this process until it is released, once that is recorded (or not).
        func end(_ fileID: Int64, keptThrough end: Int64) -> StagedUploadStateMachine.Action {
            uploads.withLock { uploads in
                guard var upload = uploads[fileID] else { return .none }
                return upload.appendEnded(keptThrough: end)
            }
        }

        /// Lets the file take an append again: the next one's machine starts from the file as stored.
        func release(_ fileID: Int64) {
            _ = uploads.withLock { $0.removeValue(forKey: fileID) }
        }
    }

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

    /// Appends `body` at `offset`, which must be where the upload stands (409 otherwise). With `checksum`, the
    /// bytes must have its digest (460 otherwise, and nothing is kept). `length`, the body's declared size (the rest of
    /// the file when not declared), must fit above the free-space floor (507 otherwise, before a byte is taken).
    /// Completes the file when it is full.
    package func append<Body: AsyncSequence>(
        _ body: Body,
        length: Int64?,
        to file: StagedFile,
        at offset: Int64,
        checksum: UploadChecksum?
    ) async throws -> StagedFile where Body.Element == ByteBuffer {
        let current = try await find(file.publicId, tenantID: file.tenantId)
        let (from, upTo) = try appends.begin(current, at: offset)
        defer { appends.release(current.rowID) }
        let appended =
            current.objects != nil
            ? await appendObject(body, to: current, checksum: checksum)
            : await appendToFile(body, length: length, to: current, from: from, upTo: upTo, checksum: checksum)
        let action = appends.end(current.rowID, keptThrough: appended.keptThrough)
        let updated: StagedFile
        do {
            updated = try await carryOut(action, on: current, adding: appended.object)
        } catch {
            await appended.undo()
            throw error
        }
        if let failure = appended.failure { throw failure }
        return updated
    }

    /// What an append kept: the file's bytes through an offset, the object that holds the new ones (in a content
    /// store), the error it broke off with, and how to take back its bytes when they cannot be recorded.
    private struct Appended {
        var keptThrough: Int64
        var object: StagedObjects.Object?
        var failure: (any Error)?
        var undo: @Sendable () async -> Void = {}
    }

    /// Records what the machine decided: the upload's new offset (with the object of the new bytes), where the upload
    /// still stands where the append began, and its completion when it is full.
    private func carryOut(
        _ action: StagedUploadStateMachine.Action,
        on file: StagedFile,
        adding object: StagedObjects.Object?
    ) async throws
        -> StagedFile
    {
        var updated = file
        let from: Int64
        switch action {
        case .refuse, .write, .none: return file
        case .record(let offset, let start): (updated.uploadOffset, from) = (offset, start)
        case .complete(let start): (updated.uploadOffset, from) = (file.uploadLength, start)
        }
        if let object { updated.objects?.appends.append(object) }
        guard try await store.write({ [updated] in try await $0.stagedFiles.update(updated, ifStandingAt: from) }) else {
            throw DomainError.conflict(
                "File `\(file.publicId)` moved on while this request appended (another request appended at \(from)); its bytes were not kept."
            )
        }
        guard case .complete = action else { return updated }
        return try await complete(updated)
    }

    /// Writes the body into the file's bytes in the data directory from `from`; what arrived stays when the body
    /// breaks off, unless a checksum did not vouch for it.
    private func appendToFile<Body: AsyncSequence>(
        _ body: Body,
        length: Int64?,
        to file: StagedFile,
        from: Int64,
        upTo: Int64,
        checksum: UploadChecksum?
    ) async -> Appended where Body.Element == ByteBuffer {
        let path = FilePath(files.stagedPath(fileID: file.rowID))
        let undo: @Sendable () async -> Void = {
            _ = try? await FileSystem.shared.withFileHandle(forReadingAndWritingAt: path) { try await $0.resize(to: .bytes(from)) }
        }
        do {
            try disk.admit(min(length ?? .max, upTo - from))
            return try await FileSystem.shared.withFileHandle(forReadingAndWritingAt: path, options: .modifyFile(createIfNecessary: true)) {
                handle in
                try await handle.resize(to: .bytes(from))
                do {
                    let end = try await write(body, into: handle, from: from, upTo: upTo, checksum: checksum)
                    try await handle.synchronize()
                    return Appended(keptThrough: end, undo: undo)
                } catch {
                    // Bytes that a checksum did not vouch for are not kept; without one, what arrived stays. The bytes
                    // are on disk before their offset is recorded (and a client that asks `HEAD` goes on).
                    try? await handle.resize(to: .bytes(checksum == nil ? min(handle.info().size, upTo) : from))
                    try? await handle.synchronize()
                    return Appended(keptThrough: (try? await handle.info().size) ?? from, failure: error, undo: undo)
                }
            }
        } catch {
            return Appended(keptThrough: from, failure: error)
        }
    }

    /// Streams the body to the file from `start`; refuses bytes past `length` and checks the checksum at the end.
    private func write<Body: AsyncSequence>(
        _ body: Body,
        into handle: ReadWriteFileHandle,
        from start: Int64,
        upTo length: Int64,
        checksum: UploadChecksum?
    ) async throws -> Int64 where Body.Element == ByteBuffer {
        var digest = checksum.map { UploadChecksum.Running($0.algorithm) }
        var batch = ByteBuffer()
        var offset = start
        func flush() async throws {
            try disk.admit(Int64(batch.readableBytes))
            try await handle.write(contentsOf: batch, toAbsoluteOffset: offset - Int64(batch.readableBytes))
            batch.clear()
        }
        do {
            for try await chunk in body {
                guard offset + Int64(chunk.readableBytes) <= length else {
                    throw DomainError.tooLarge("The body goes past the upload's length of \(length) bytes.")
                }
                digest?.update(chunk)
                batch.writeImmutableBuffer(chunk)
                offset += Int64(chunk.readableBytes)
                if batch.readableBytes >= Self.batchSize { try await flush() }
            }
        } catch {
            if checksum == nil { try? await flush() }
            throw error
        }
        try await flush()
        if let checksum, let digest, digest.finalize() != checksum.digest {
            throw DomainError.checksumMismatch(
                "The \(checksum.algorithm.rawValue) of the body differs from Upload-Checksum; its bytes were not kept."
            )
        }
        return offset
    }

    /// Streams `body` into an object of its own after the file's appends: kept (to be recorded) once the store has all
    /// of it. Its key is the append's own, so that an append of another instance at the same offset, which the record
    /// fences out, never overwrites it.
    private func appendObject<Body: AsyncSequence>(
        _ body: Body,
        to file: StagedFile,
        checksum: UploadChecksum?
    ) async -> Appended where Body.Element == ByteBuffer {
        let nothing = Appended(keptThrough: file.uploadOffset)
        let client: S3Client
        let location: ObjectLocation
        do {
            let (store, contentStore) = try contentStore()
            (client, location) = (store, contentStore.appendLocation(fileID: file.rowID, offset: file.uploadOffset, append: UUID()))
        } catch {
            return Appended(keptThrough: file.uploadOffset, failure: error)
        }
        var digest = checksum.map { UploadChecksum.Running($0.algorithm) }
        var end = file.uploadOffset
        let written: (size: Int64, etag: String)
        do {
            written = try await client.upload(location.key.value, from: ClientBody(base: body), contentType: file.contentType) { chunk in
                guard end + Int64(chunk.readableBytes) <= file.uploadLength else {
                    throw DomainError.tooLarge("The body goes past the upload's length of \(file.uploadLength) bytes.")
                }
                digest?.update(chunk)
                end += Int64(chunk.readableBytes)
            }
        } catch let failure as ClientBodyError {
            return Appended(keptThrough: file.uploadOffset, failure: failure.underlying)
        } catch let refusal as DomainError {
            return Appended(keptThrough: file.uploadOffset, failure: refusal)
        } catch {
            return Appended(
                keptThrough: file.uploadOffset,
                failure: Self.unavailable(error, "could not take the bytes", "nothing was kept")
            )
        }
        if let checksum, let digest, digest.finalize() != checksum.digest {
            await kept.remove(location)
            let mismatch = DomainError.checksumMismatch(
                "The \(checksum.algorithm.rawValue) of the body differs from Upload-Checksum; its bytes were not kept."
            )
            return Appended(keptThrough: file.uploadOffset, failure: mismatch)
        }
        guard written.size > 0 else {
            await kept.remove(location)
            return nothing
        }
        let kept = self.kept
        return Appended(
            keptThrough: end,
            object: StagedObjects.Object(key: location.key.value, size: written.size, etag: written.etag),
            undo: { await kept.remove(location) }
        )
    }

    /// The content store's failure as the client reads it: its code when it answered, never more of it.
    private static func unavailable(_ error: any Error, _ failed: String, _ then: String) -> DomainError {
        let code = (error as? S3Error).map { " (\($0.code))" } ?? ""
        return .objectStorageUnavailable("The content store \(failed)\(code); \(then).")
    }

    /// The content store's client and settings; files are bound to it only when there is one.
    private func contentStore() throws -> (S3Client, ContentStoreSettings) {
        guard let client = objects.content, let settings = files.contentStore else {
            throw DomainError.objectStorageUnavailable("This file's bytes are in a content store, and none is configured.")
        }
        return (client, settings)
    }

    /// A full file: its SHA-256 is computed from what is stored, and it is kept for the retention period from now.
    private func complete(_ file: StagedFile) async throws -> StagedFile {
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
