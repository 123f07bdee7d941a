import AsyncHTTPClient
import Foundation
import NIOCore
import TransferdDomain
import TransferdS3
import TransferdStorage
import _NIOFileSystem

/// An append: admitted by the file's machine, written, then recorded where the upload still stands.
extension StagedFileService {
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
        case .none: return file
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
}
