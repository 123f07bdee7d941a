import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Stages a local file on transferd with the tus protocol (`/v1/files`): creation with its length and name, then
/// `PATCH` from the offset the server holds, asked again with `HEAD` after a broken connection, so an upload
/// continues instead of starting over.
struct TusUpload: Sendable {
    let client: APIConnection
    /// Failed connections in a row before the upload gives up.
    var attempts = 8

    /// The bytes the server has, readable while the upload runs (for a progress bar).
    final class Progress: Sendable {
        private let sent = Atomic<Int64>(0)
        private let finished = Atomic<Bool>(false)
        var bytes: Int64 { sent.load(ordering: .relaxed) }
        func set(_ bytes: Int64) { sent.store(bytes, ordering: .relaxed) }
        /// Whether the upload has ended (done or failed).
        var isFinished: Bool { finished.load(ordering: .acquiring) }
        func finish() { finished.store(true, ordering: .releasing) }
    }

    /// Uploads the file at `path` and returns its id on transferd; `notice` hears of each continuation.
    func upload(_ path: String, size: Int64, progress: Progress, notice: @Sendable (String) -> Void) async throws -> String {
        var create = try client.request(.POST, "/v1/files")
        create.headers.add(name: "Tus-Resumable", value: "1.0.0")
        create.headers.add(name: "Upload-Length", value: String(size))
        let name = URL(fileURLWithPath: path).lastPathComponent
        create.headers.add(name: "Upload-Metadata", value: "filename \(Data(name.utf8).base64EncodedString())")
        struct Staged: Decodable { var id: String }
        let id = try await client.send(create).decode(Staged.self).id
        var offset: Int64 = 0
        var failures = 0
        while offset < size {
            do {
                offset = try await patch(id, from: offset, path: path, size: size, progress: progress)
                failures = 0
            } catch let failure as CommandFailure where !failure.isTransient && !failure.isBusyUpload {
                throw failure
            } catch {
                failures += 1
                guard failures < attempts else { throw CommandFailure(reaching: client.baseURL, error) }
                try await Task.sleep(for: .milliseconds(200 * failures))
                offset = try await self.offset(of: id)
                notice(
                    "staging \(URL(fileURLWithPath: path).lastPathComponent): the connection broke; continuing from \(Units.bytes(offset))"
                )
            }
            progress.set(offset)
        }
        return id
    }

    /// Sends the file from `offset` to its end in one `PATCH`, and returns the offset the server then holds.
    private func patch(_ id: String, from offset: Int64, path: String, size: Int64, progress: Progress) async throws -> Int64 {
        guard let input = FileHandle(forReadingAtPath: path) else { throw CommandFailure.file("cannot read \(path)") }
        try input.seek(toOffset: UInt64(offset))
        var request = try client.request(.PATCH, "/v1/files/\(id)")
        request.headers.add(name: "Tus-Resumable", value: "1.0.0")
        request.headers.add(name: "Upload-Offset", value: String(offset))
        request.headers.add(name: "Content-Type", value: "application/offset+octet-stream")
        request.body = .stream(FileChunks(input: input, start: offset, progress: progress), length: .known(size - offset))
        let reply = try await client.send(request, timeout: .hours(24))
        return reply.headers.first(name: "Upload-Offset").flatMap(Int64.init) ?? size
    }

    /// Where the server's copy ends (`HEAD`).
    private func offset(of id: String) async throws -> Int64 {
        var request = try client.request(.HEAD, "/v1/files/\(id)")
        request.headers.add(name: "Tus-Resumable", value: "1.0.0")
        let reply = try await client.send(request)
        guard let offset = reply.headers.first(name: "Upload-Offset").flatMap(Int64.init) else {
            throw CommandFailure.unexpectedAnswer("HEAD /v1/files/\(id) gave no Upload-Offset")
        }
        return offset
    }
}

extension CommandFailure {
    /// transferd still appends the bytes of a request whose connection broke (409): it will have ended soon.
    var isBusyUpload: Bool {
        if case .problem(409, _, _) = self { return true }
        return false
    }
}

/// A file's bytes from an offset, in blocks, as a request body; each block counts toward `progress` once read.
private struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let input: FileHandle
    let start: Int64
    let progress: TusUpload.Progress

    struct Iterator: AsyncIteratorProtocol {
        let input: FileHandle
        var position: Int64
        let progress: TusUpload.Progress

        mutating func next() async throws -> ByteBuffer? {
            guard let block = try input.read(upToCount: 256 << 10), !block.isEmpty else {
                try? input.close()
                return nil
            }
            position += Int64(block.count)
            progress.set(position)
            return ByteBuffer(bytes: block)
        }
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(input: input, position: start, progress: progress)
    }
}
