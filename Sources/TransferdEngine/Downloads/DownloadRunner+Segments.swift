import AsyncHTTPClient
import NIOHTTP1
import TransferdDomain

/// A download in parallel segments.
extension DownloadRunner {
    /// The byte ranges to fetch in parallel: one per connection the task allows, each at least
    /// `minimumSegmentSize`, when the origin answered with a range, the size is known and the bytes can be
    /// continued by range. One range otherwise.
    func segments(of download: DownloadJob, first: FirstBody) -> [Range<Int64>] {
        let start = first.start.offset
        let end = first.start.expectedBytes
        guard download.connections > 1, first.start.rangeHonoured, first.decoder == nil, end > start,
            (try? first.start.resumability.get()) != nil
        else {
            return [start..<max(start, end)]
        }
        let count = Int64(min(download.connections, Int((end - start) / Self.minimumSegmentSize)))
        guard count > 1 else { return [start..<end] }
        let length = (end - start + count - 1) / count
        return stride(from: start, to: end, by: Int(length)).map { $0..<min(end, $0 + length) }
    }

    /// Fetches every segment at once: the first from the response already open, the others with range requests
    /// that must answer `206` for the same representation. Returns the end of the file.
    func writeSegments(
        _ segments: [Range<Int64>],
        first: FirstBody,
        of job: TransferJob,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        writer: BodyWriter,
        prefix: BodyWriter.Mark
    ) async throws -> Int64 {
        let validator = try first.start.resumability.get()
        let (body, url, deadline, firstTimeline) = (first.body, first.url, first.deadline, first.timeline)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await writer.write(body, from: segments[0].lowerBound, upTo: segments[0].upperBound, mark: prefix)
                firstTimeline.finished(bodyBytes: Int64(segments[0].count))
            }
            for segment in segments.dropFirst() {
                group.addTask {
                    let range = RangeRequest(first: segment.lowerBound, last: segment.upperBound - 1, ifRange: validator)
                    let (response, _, timeline) = try await fetch(
                        job,
                        download,
                        from: url,
                        range: range,
                        deadline: deadline,
                        transfer: transfer,
                        reportingRedirects: false
                    )
                    let answered = ContentRange(response.headers.first(name: "content-range") ?? "")
                    guard response.status == .partialContent, answered?.first == segment.lowerBound else {
                        throw TransferError(
                            code: .networkConnectionLost,
                            message:
                                "The resource changed or stopped honouring ranges during a segmented download (HTTP \(response.status.code))."
                        )
                    }
                    let mark = BodyWriter.Mark(segment.lowerBound)
                    _ = try await writer.write(response.body, from: segment.lowerBound, upTo: segment.upperBound, mark: mark)
                    timeline.finished(bodyBytes: Int64(segment.count))
                }
            }
            try await group.waitForAll()
        }
        return segments.last?.upperBound ?? first.start.offset
    }
}
