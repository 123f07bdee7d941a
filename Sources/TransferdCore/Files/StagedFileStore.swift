import Crypto
import Foundation
import GRDB
import HTTPTypes
import NIOCore
import Synchronization
import _NIOFileSystem

/// Staged files: their rows, their bytes on disk (`files/<row id>`), and the rules of tus appends.
///
/// Bytes stream from the request to disk in batches, never whole in memory. An append that breaks off keeps what
/// arrived (the client asks `HEAD` where to go on), unless it carried a checksum, which only whole bytes can meet.
struct StagedFileStore: Sendable {
    /// Files being appended to: one request at a time per file.
    final class Appends: Sendable {
        private let busy = Mutex<Set<Int64>>([])

        func begin(_ fileID: Int64) -> Bool {
            busy.withLock { $0.insert(fileID).inserted }
        }

        func end(_ fileID: Int64) {
            _ = busy.withLock { $0.remove(fileID) }
        }
    }

    static let batchSize = 512 << 10

    let database: AppDatabase
    let files: FileStore
    let limits: StagedFileLimits
    let appends = Appends()

    /// Creates an empty file that will be `length` bytes long; `publicID` is the client's (plain `PUT`) or generated.
    func create(
        publicID: String?,
        tenantID: Int64,
        length: Int64,
        metadata: [String: String]?,
        contentType: String?
    ) async throws
        -> StagedFile
    {
        guard length >= 0 else { throw Problem.invalidField("Upload-Length", "must be a non-negative integer") }
        guard length <= limits.maximumSize else {
            throw Problem(
                status: .contentTooLarge,
                slug: "content-too-large",
                title: "Content too large",
                detail: "The file would be \(length) bytes; this service accepts at most \(limits.maximumSize) (Tus-Max-Size)."
            )
        }
        let now = Date()
        let file = try await database.pool.write { db in
            let publicID = publicID ?? UUID().uuidString.lowercased()
            guard try StagedFile.filter(Column("tenant_id") == tenantID && Column("public_id") == publicID).fetchCount(db) == 0 else {
                throw Problem.conflict("A file with the id `\(publicID)` exists already; files cannot be replaced.")
            }
            var file = StagedFile(
                tenantId: tenantID,
                publicId: publicID,
                uploadLength: length,
                uploadOffset: 0,
                metadata: metadata,
                contentType: contentType ?? metadata?["filetype"],
                createdAt: now,
                expiresAt: now.addingTimeInterval(limits.uploadExpiration.timeInterval)
            )
            try file.insert(db)
            return file
        }
        guard FileManager.default.createFile(atPath: files.stagedPath(fileID: file.rowID), contents: nil) else {
            throw TransferError(code: .cannotWriteToFile, message: "Could not create the staged file.")
        }
        return length == 0 ? try await complete(file) : file
    }

    /// The file a public id names among the tenant's; unfinished uploads past their expiry count as gone.
    func find(_ publicID: String, tenantID: Int64) async throws -> StagedFile {
        try ClientIdentifier.validate(publicID, field: "id")
        let file = try await database.pool.read { db in
            try StagedFile.filter(Column("tenant_id") == tenantID && Column("public_id") == publicID).fetchOne(db)
        }
        guard let file, file.isComplete || file.expiresAt > Date() else {
            throw Problem.notFound("No file has the id `\(publicID)`.")
        }
        return file
    }

    /// Appends `body` at `offset`, which must be where the upload stands (409 otherwise). With `checksum`, the
    /// bytes must have its digest (460 otherwise, and nothing is kept). Completes the file when it is full.
    func append<Body: AsyncSequence>(
        _ body: Body,
        to file: StagedFile,
        at offset: Int64,
        checksum: UploadChecksum?
    ) async throws -> StagedFile where Body.Element == ByteBuffer {
        guard appends.begin(file.rowID) else {
            throw Problem.conflict("Another request is appending to file `\(file.publicId)`; try again when it has ended.")
        }
        defer { appends.end(file.rowID) }
        let current = try await find(file.publicId, tenantID: file.tenantId)
        guard !current.isComplete else { throw Problem.conflict("File `\(file.publicId)` is complete; it takes no more bytes.") }
        guard offset == current.uploadOffset else {
            throw Problem.conflict("Upload-Offset is \(offset) but the upload stands at \(current.uploadOffset).")
        }
        let path = FilePath(files.stagedPath(fileID: file.rowID))
        let end = try await FileSystem.shared.withFileHandle(forReadingAndWritingAt: path, options: .modifyFile(createIfNecessary: true)) {
            handle in
            try await handle.resize(to: .bytes(offset))
            do {
                let end = try await write(body, into: handle, from: offset, upTo: current.uploadLength, checksum: checksum)
                try await handle.synchronize()
                return end
            } catch {
                // Bytes that a checksum did not vouch for are not kept; without one, what arrived stays.
                try? await handle.resize(to: .bytes(checksum == nil ? min(handle.info().size, current.uploadLength) : offset))
                try? await handle.synchronize()
                let kept = (try? await handle.info().size) ?? offset
                _ = try? await record(current, offset: kept)
                throw error
            }
        }
        let updated = try await record(current, offset: end)
        return end == updated.uploadLength ? try await complete(updated) : updated
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
            try await handle.write(contentsOf: batch, toAbsoluteOffset: offset - Int64(batch.readableBytes))
            batch.clear()
        }
        do {
            for try await chunk in body {
                guard offset + Int64(chunk.readableBytes) <= length else {
                    throw Problem(
                        status: .contentTooLarge,
                        slug: "content-too-large",
                        title: "Content too large",
                        detail: "The body goes past the upload's length of \(length) bytes."
                    )
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
            throw Problem(
                status: HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch"),
                slug: "checksum-mismatch",
                title: "Checksum mismatch",
                detail: "The \(checksum.algorithm.rawValue) of the body differs from Upload-Checksum; its bytes were not kept."
            )
        }
        return offset
    }

    private func record(_ file: StagedFile, offset: Int64) async throws -> StagedFile {
        try await database.pool.write { db in
            var file = file
            file.uploadOffset = offset
            try file.update(db, columns: ["upload_offset"])
            return file
        }
    }

    /// A full file: its SHA-256 is computed from disk, and it is kept for the retention period from now.
    private func complete(_ file: StagedFile) async throws -> StagedFile {
        var hasher = SHA256()
        let path = FilePath(files.stagedPath(fileID: file.rowID))
        try await FileSystem.shared.withFileHandle(forReadingAt: path) { handle in
            for try await chunk in handle.readChunks(in: 0..<file.uploadLength, chunkLength: .mebibytes(1)) {
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            }
        }
        let (now, sha256) = (Date(), hasher.finalize().hex)
        return try await database.pool.write { db in
            var file = file
            file.sha256 = sha256
            file.completedAt = now
            file.expiresAt = now.addingTimeInterval(limits.retention.timeInterval)
            try file.update(db)
            return file
        }
    }

    /// Removes a file (tus termination); one that a queued or running upload task will send is kept (409).
    func remove(_ file: StagedFile) async throws {
        try await database.pool.write { db in
            let users = try Int64.fetchAll(
                db,
                sql: "SELECT task_identifier FROM tasks WHERE source_file_id = ? AND state <> 'completed'",
                arguments: [file.rowID]
            )
            guard users.isEmpty else {
                throw Problem.conflict(
                    "File `\(file.publicId)` is used by upload task(s) \(users.map(String.init).joined(separator: ", "))."
                )
            }
            _ = try StagedFile.deleteOne(db, key: file.rowID)
        }
        files.removeStaged(fileID: file.rowID)
    }
}
