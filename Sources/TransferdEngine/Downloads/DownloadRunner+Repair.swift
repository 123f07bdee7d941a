import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import TransferdDomain
import _NIOFileSystem

/// A download from several sources whose bytes miss its checksum: which source served other bytes is found by
/// fetching again, from one source, what the others brought, and the file is mended from it.
extension DownloadRunner {
    /// Fetches again from one source (the opening one, unless it was dropped: then the one that brought the most)
    /// every byte it did not bring in this attempt, compares it with the file and writes what differs; drops the
    /// sources whose bytes differed (`checksumMismatch`). Returns whether a byte was mended.
    func repair(
        _ board: SourceBoard,
        first: FirstBody,
        of job: TransferJob,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        handle: ReadWriteFileHandle,
        size: Int64
    ) async throws -> Bool {
        let live = board.liveSources
        guard
            let trusted = live.contains(first.source)
                ? first.source : live.max(by: { board.fetched(by: $0).byteCount < board.fetched(by: $1).byteCount })
        else { return false }
        let others = (0..<board.sourceCount).filter { $0 != trusted }.map { ($0, board.fetched(by: $0)) }
        var mended = false
        var culprits = Set<Int>()
        for range in board.fetched(by: trusted).gaps(in: 0..<size) {
            // The opening source's validator holds for it alone: a mirror may carry its own (the checksum judges).
            let validator = trusted == first.source ? try? first.start.resumability.get() : nil
            let request = RangeRequest(first: range.lowerBound, last: range.upperBound - 1, ifRange: validator)
            let (response, _, timeline) = try await fetch(
                job,
                download,
                from: job.sources[trusted],
                range: request,
                deadline: first.deadline,
                transfer: transfer,
                reportingRedirects: false
            )
            guard response.status == .partialContent,
                ContentRange(response.headers.first(name: "content-range") ?? "")?.first == range.lowerBound
            else { throw TransferError.badServerResponse(status: Int(response.status.code)) }
            var offset = range.lowerBound
            for try await var chunk in response.body {
                let length = Int(min(Int64(chunk.readableBytes), range.upperBound - offset))
                guard length > 0 else { break }
                chunk = chunk.getSlice(at: chunk.readerIndex, length: length) ?? chunk
                transfer.touch()
                try await BandwidthLimit.consume(length, through: transfer.limits, whileWaiting: transfer.touch)
                let stored = try await handle.readChunk(fromAbsoluteOffset: offset, length: .bytes(Int64(length)))
                let span = offset..<(offset + Int64(length))
                if stored != chunk {
                    try await handle.write(contentsOf: chunk, toAbsoluteOffset: offset)
                    mended = true
                    for (source, fetched) in others where fetched.intersects(span) { culprits.insert(source) }
                }
                offset = span.upperBound
            }
            guard offset == range.upperBound else {
                throw TransferError(code: .networkConnectionLost, message: "The source the download was mended from stopped early.")
            }
            timeline.finished(bodyBytes: offset - range.lowerBound)
        }
        for source in culprits.sorted() {
            let message = "Its bytes differed from \(Redaction.url(job.sources[trusted]))'s, and the download missed its checksum."
            await drop(source, of: job, board, transfer: transfer, reason: .checksumMismatch, message: message)
        }
        return mended
    }
}
