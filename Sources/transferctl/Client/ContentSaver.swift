import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TransferdClient

/// Saves a finished download's content from transferd to a local file: into `<path>.part` first, continued with a
/// `Range` request (`If-Range` its ETag) when the connection breaks or an earlier run stopped midway, checked
/// against the task's SHA-256, then renamed into place.
struct ContentSaver {
    let client: APIConnection
    /// Connections tried in a row before the save gives up.
    var attempts = 5

    /// Saves `task`'s content to `path`, calling `progress` with the bytes saved so far and `notice` with what a
    /// person should know (a continuation, a fresh start).
    func save(
        session: String,
        task: APITask,
        to path: String,
        progress: (Int64) -> Void,
        notice: (String) -> Void
    ) async throws {
        guard let file = task.file else {
            throw CommandFailure.file(
                "\(session)/\(task.taskIdentifier) has no content to save (it expired, or the task is not a finished download)"
            )
        }
        let partial = path + ".part"
        let output = try Self.open(partial)
        defer { try? output.close() }
        var saved = try output.seekToEnd()
        if saved > UInt64(file.size) {
            saved = 0
            try output.truncate(atOffset: 0)
        }
        while true {
            let continued = saved > 0
            var hash = SHA256()
            if continued {
                try Self.hash(partial, upTo: saved, into: &hash)
                notice("\(session)/\(task.taskIdentifier): continuing from \(Units.bytes(Int64(saved))) in \(partial)")
            }
            try await fetch(session: session, task: task, file: file, into: output, saved: &saved, hash: &hash, progress: progress) {
                notice("\(session)/\(task.taskIdentifier): the connection broke; continuing from \(Units.bytes(Int64($0)))")
            }
            let digest = hash.finalize().map { String(format: "%02x", $0) }.joined()
            if digest == file.sha256 { break }
            guard continued else {
                throw CommandFailure.file("the content saved to \(partial) has SHA-256 \(digest), not the task's \(file.sha256)")
            }
            // The bytes kept from before were not the content's: they are dropped, and the content is saved whole.
            notice("\(session)/\(task.taskIdentifier): \(partial) did not match the content; saving again from the start")
            saved = 0
            try output.truncate(atOffset: 0)
        }
        try output.synchronize()
        guard rename(partial, path) == 0 else {
            throw CommandFailure.file("cannot rename \(partial) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Appends the content from `saved` to its end to `output`, with `Range` requests from where it stands after
    /// each broken connection; starts again from 0 when transferd sends the content whole.
    private func fetch(
        session: String,
        task: APITask,
        file: APIStoredFile,
        into output: FileHandle,
        saved: inout UInt64,
        hash: inout SHA256,
        progress: (Int64) -> Void,
        broken: (UInt64) -> Void
    ) async throws {
        var failures = 0
        while saved < UInt64(file.size) {
            var request = try client.request(.GET, "/v1/sessions/\(session)/tasks/\(task.taskIdentifier)/content")
            if saved > 0 {
                request.headers.add(name: "Range", value: "bytes=\(saved)-")
                request.headers.add(name: "If-Range", value: "\"\(file.sha256)\"")
            }
            do {
                let response = try await client.open(request, timeout: .hours(24))
                if response.status != .partialContent, saved > 0 {
                    (saved, hash) = (0, SHA256())
                    try output.truncate(atOffset: 0)
                }
                for try await chunk in response.body {
                    try output.write(contentsOf: Data(buffer: chunk, byteTransferStrategy: .noCopy))
                    chunk.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                    saved += UInt64(chunk.readableBytes)
                    progress(Int64(saved))
                }
                failures = 0
            } catch let failure as CommandFailure where !failure.isTransient {
                throw failure
            } catch {
                failures += 1
                guard failures < attempts else { throw CommandFailure(reaching: client.baseURL, error) }
                try await Task.sleep(for: .milliseconds(200 * failures))
                broken(saved)
            }
        }
    }

    /// The partial file, created when absent.
    private static func open(_ path: String) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CommandFailure.file("cannot create \(path)")
            }
        }
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw CommandFailure.file("cannot write \(path)") }
        return handle
    }

    /// Adds the first `length` bytes of the file at `path` to `hash` (a save that continues).
    private static func hash(_ path: String, upTo length: UInt64, into hash: inout SHA256) throws {
        guard let input = FileHandle(forReadingAtPath: path) else { throw CommandFailure.file("cannot read \(path)") }
        defer { try? input.close() }
        var remaining = length
        while remaining > 0, let block = try input.read(upToCount: Int(min(remaining, 1 << 20))), !block.isEmpty {
            hash.update(data: block)
            remaining -= UInt64(block.count)
        }
    }
}

extension CommandFailure {
    /// Whether trying again may help: the connection failed, rather than transferd refusing.
    var isTransient: Bool {
        if case .unreachable = self { return true }
        return false
    }
}
