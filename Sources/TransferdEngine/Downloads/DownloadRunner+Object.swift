import AsyncHTTPClient
import NIOCore
import TransferdDomain
import TransferdS3

extension DownloadRunner {
    /// Streams the body into the object's multipart upload after the parts kept (a new upload when the origin could
    /// not continue them: the old one is aborted; the upload a failed attempt began before its first part is
    /// continued), checkpointing the parts as the store acknowledges them, and makes the object. Its SHA-256 is
    /// computed on the way when the whole body streamed in this attempt; after a continued upload, by reading the
    /// object back once, since the digest of the parts sent before is not kept. A requested checksum that differs
    /// removes the object.
    func storeObject(
        _ first: FirstBody,
        in location: ObjectLocation,
        client: S3Client,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        contentType: String?
    ) async throws -> StoredFile {
        let start = first.start
        let (upload, firstStep) = ObjectUploadStateMachine.starting(kept: download.objectUpload, at: start.offset)
        if case .abort(let stale) = firstStep {
            try? await client.abortMultipartUpload(location.key.value, upload: stale.multipartUpload)
        }
        let writer = ObjectWriter(
            client: client,
            location: location,
            transfer: transfer,
            limits: transfer.limits,
            maximumSize: download.maxBytes,
            contentType: contentType,
            kept: ObjectWriter.Kept(upload),
            allowance: first.allowance
        ) { [reporter = environment.reporter] progress in
            try await reporter.objectUploadBegun(transfer, objectUpload: progress)
        }
        let checkpoints = Checkpoints(transfer: transfer, kept: start.offset, reporter: environment.reporter) {
            let durable = writer.kept.durable
            return (durable.bytes, nil, durable.objectUpload)
        }
        var digest = ContentDigest(checksum: download.checksum)
        let (size, etag) = try await checkpointing(checkpoints, transfer: transfer, watchingDisk: false) {
            let written = try await writer.write(first.body, from: start.offset, expected: start.expectedBytes, decoder: first.decoder) {
                digest.update($0)
            }
            first.timeline.finished(bodyBytes: written.size - start.offset)
            return written
        }
        let sha256: String
        do {
            sha256 = start.offset == 0 ? try digest.finish(verifying: download.checksum) : try await readBack(location, client, download)
        } catch let error as TransferError where error.code == .checksumMismatch {
            try? await client.delete(location.key.value)
            throw error
        }
        let object = StoredObject(
            storage: location.storage,
            bucket: client.bucket.name,
            key: location.key.value,
            etag: etag,
            url: client.bucket.objectURL(location.key.value)
        )
        return StoredFile(size: size, sha256: sha256, contentType: contentType, object: object)
    }

    /// The SHA-256 of the object as the store holds it, verified against a requested checksum.
    private func readBack(_ location: ObjectLocation, _ client: S3Client, _ download: DownloadJob) async throws -> String {
        var digest = ContentDigest(checksum: download.checksum)
        do {
            for try await chunk in try await client.get(location.key.value).body { digest.update(chunk) }
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
        return try digest.finish(verifying: download.checksum)
    }
}

extension ObjectUploadProgress {
    /// The upload as the S3 client names it.
    package var multipartUpload: S3MultipartUpload { S3MultipartUpload(uploadId: uploadId, checksums: checksums) }
}
