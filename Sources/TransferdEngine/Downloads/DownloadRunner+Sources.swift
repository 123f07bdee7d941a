import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import TransferdDomain

/// A download over several connections: `connections` to each of its sources (its URL, then its mirrors), sharing
/// one ``SourceBoard``. A source that fails, serves other content or lags far behind is dropped for the attempt
/// (`task.source_dropped`); the attempt fails only when no source is left for what remains.
extension DownloadRunner {
    /// How many one-second samples of the sources' rates a source is judged over before it is dropped as too slow.
    static let slowSourceWindow = 10
    /// The bounds of the pieces connections take in turn: an eighth of each connection's share, within them.
    static let smallestPiece: Int64 = 4 << 20
    static let largestPiece: Int64 = 16 << 20

    /// The board of an attempt that fetches over several connections: when the task allows several (`connections`,
    /// or mirrors) and the opening response proves that the resource can be fetched by range (a `206` of a known size,
    /// not decoded, with a validator). Nil for one stream.
    func sourceBoard(_ job: TransferJob, _ download: DownloadJob, first: FirstBody) -> SourceBoard? {
        let start = first.start
        guard download.connections > 1 || !job.mirrors.isEmpty, start.rangeHonoured, first.decoder == nil,
            start.expectedBytes > start.offset, (try? start.resumability.get()) != nil
        else { return nil }
        let kept = start.continuesKept ? download.resumePoint?.kept ?? KeptRanges() : KeptRanges()
        let whole = start.offset..<start.expectedBytes
        let connections = Int64(job.sources.count * download.connections)
        let board = SourceBoard(
            whole: whole,
            kept: kept,
            sources: job.sources.count,
            pieceSize: min(max(Int64(whole.count) / (connections * 8), Self.smallestPiece), Self.largestPiece),
            minimumSplit: Self.minimumSegmentSize
        )
        for source in first.failedSources { board.drop(source) }
        return board
    }

    /// What every connection of an attempt from several sources shares.
    struct SourceFetch: Sendable {
        let board: SourceBoard
        let job: TransferJob
        let download: DownloadJob
        let transfer: ActiveTransfer
        let writer: BodyWriter
        /// The source of the opening response, and its validator, which the others' must match without a checksum.
        let opener: Int
        let validator: ResumeValidator?
        let deadline: NIODeadline
    }

    /// Fetches what the board holds: the opening response's segment, and every other connection's, until every byte
    /// is written; throws the last source's error when none is left for what remains.
    func writeFromSources(
        _ board: SourceBoard,
        first: FirstBody,
        of job: TransferJob,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        writer: BodyWriter
    ) async throws {
        let fetch = SourceFetch(
            board: board,
            job: job,
            download: download,
            transfer: transfer,
            writer: writer,
            opener: first.source,
            validator: try? first.start.resumability.get(),
            deadline: first.deadline
        )
        let opening = board.opening(from: first.source)
        let workers = job.sources.indices.flatMap { source in (0..<download.connections).map { (source, $0) } }
        // Each connection ends with the error that dropped its source, or nil.
        let lastError = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
            for (source, index) in workers where !board.isDropped(source) {
                let opened = source == first.source && index == 0 ? opening.map { ($0, first.body, first.timeline) } : nil
                group.addTask {
                    let worker = Task {
                        try await fetchSegments(from: source, opening: opened, fetch)
                    }
                    board.register(worker, of: source)
                    do {
                        try await withTaskCancellationHandler {
                            try await worker.value
                        } onCancel: {
                            worker.cancel()
                        }
                        return nil
                    } catch {
                        if Task.isCancelled { throw error }
                        guard !board.isDropped(source) else { return nil }
                        await drop(source, of: job, board, transfer: transfer, because: error)
                        return error
                    }
                }
            }
            let monitor = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(1))
                    for slow in board.sampleRates(window: Self.slowSourceWindow) {
                        let message = "It delivered less than a quarter of the fastest source's bytes over \(Self.slowSourceWindow) s."
                        await drop(slow, of: job, board, transfer: transfer, reason: .tooSlow, message: message)
                    }
                }
            }
            defer { monitor.cancel() }
            var lastError: (any Error)?
            for try await case let error? in group { lastError = error }
            return lastError
        }
        if !board.isComplete {
            throw lastError ?? TransferError(code: .networkConnectionLost, message: "Every source of the download failed.")
        }
    }

    /// The loop of one connection to `source`: takes segments from the board (the opening one first, when given),
    /// fetches and writes each, until nothing is left.
    private func fetchSegments(
        from source: Int,
        opening: (SourceBoard.Claim, HTTPClientResponse.Body, RequestTimeline)?,
        _ fetch: SourceFetch
    ) async throws {
        let board = fetch.board
        var opening = opening
        while true {
            let claim: SourceBoard.Claim
            let body: HTTPClientResponse.Body
            let timeline: RequestTimeline
            if let opened = opening {
                (claim, body, timeline) = opened
                opening = nil
            } else {
                switch board.work(for: source) {
                case .done: return
                case .wait:
                    try await Task.sleep(for: .milliseconds(20))
                    continue
                case .fetch(let next):
                    claim = next
                    do {
                        (body, timeline) = try await requestSegment(next, from: source, fetch)
                    } catch {
                        board.release(claim)
                        throw error
                    }
                }
            }
            do {
                _ = try await fetch.writer.write(body, from: claim.start, within: claim.bound, mark: claim.mark) {
                    board.delivered($0.readableBytes, by: source)
                }
                timeline.finished(bodyBytes: claim.mark.value - claim.start)
                board.release(claim)
            } catch {
                board.release(claim)
                throw error
            }
        }
    }

    /// Asks `source` for a segment: a `206` for exactly its start, of the same size, and (without a checksum to
    /// tell) of the same representation as the opening response; anything else is ``DifferentContent``.
    private func requestSegment(
        _ claim: SourceBoard.Claim,
        from source: Int,
        _ fetch: SourceFetch
    ) async throws -> (HTTPClientResponse.Body, RequestTimeline) {
        let (board, validator) = (fetch.board, fetch.validator)
        // With a checksum to verify the whole, mirrors may carry validators of their own: only the size must agree.
        let sameRepresentation = source == fetch.opener || fetch.download.checksum == nil
        let range = RangeRequest(first: claim.start, last: claim.requestEnd - 1, ifRange: sameRepresentation ? validator : nil)
        let (response, _, timeline) = try await self.fetch(
            fetch.job,
            fetch.download,
            from: fetch.job.sources[source],
            range: range,
            deadline: fetch.deadline,
            transfer: fetch.transfer,
            reportingRedirects: false
        )
        guard response.status == .partialContent else {
            if response.status == .ok {
                throw DifferentContent("It answered a range request for another representation with the whole (HTTP 200).")
            }
            throw TransferError.badServerResponse(status: Int(response.status.code))
        }
        let answered = ContentRange(response.headers.first(name: "content-range") ?? "")
        guard let answered, answered.first == claim.start else {
            throw DifferentContent("It answered a range request from byte \(claim.start) with another range.")
        }
        guard let size = answered.completeLength else { throw DifferentContent("It did not say the size of what it serves.") }
        guard size == board.whole.upperBound else { throw DifferentContent("It serves \(size) bytes, not \(board.whole.upperBound).") }
        if sameRepresentation, let validator {
            let summary = TransferResponse(response)
            let served = try? ResumeValidator.of(headers: summary.headers, statusCode: summary.statusCode, decoded: false).get()
            guard served == validator else {
                throw DifferentContent("Its validator (\(served?.ifRange ?? "none")) is not \(validator.ifRange).")
            }
        }
        return (response.body, timeline)
    }

    /// Gives up `source` for the attempt, for the reason its error tells.
    private func drop(_ source: Int, of job: TransferJob, _ board: SourceBoard, transfer: ActiveTransfer, because error: any Error) async {
        let (reason, message): (SourceDropped.Reason, String) =
            switch error {
            case let different as DifferentContent: (.differentContent, different.message)
            case let transferError as TransferError: (.failed, transferError.message)
            default: (.failed, "\(error)")
            }
        await drop(source, of: job, board, transfer: transfer, reason: reason, message: message)
    }

    /// Gives up `source` and writes `task.source_dropped`, once.
    func drop(
        _ source: Int,
        of job: TransferJob,
        _ board: SourceBoard,
        transfer: ActiveTransfer,
        reason: SourceDropped.Reason,
        message: String
    ) async {
        guard board.drop(source) else { return }
        let dropped = SourceDropped(url: job.sources[source], reason: reason, message: message)
        try? await environment.reporter.sourceDropped(transfer, dropped)
    }

    /// A source's response that shows it serves other content than the opening one.
    struct DifferentContent: Error {
        let message: String

        init(_ message: String) {
            self.message = message
        }
    }
}
