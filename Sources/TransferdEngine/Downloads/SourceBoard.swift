import Synchronization
import TransferdDomain

/// The shared work of a download fetched over several connections, from its URL and its mirrors (its sources): what
/// is left to fetch, the segments under way, and what each source brought. A connection takes the next piece of the
/// lowest range no one fetches, so that the file fills from the front (and its prefix is hashed as it grows), or
/// else the back half of the segment with the most left; faster sources end up fetching more. A source that fails
/// or lags is dropped, and what its segments left goes back to the others.
final class SourceBoard: Sendable {
    /// A segment a connection fetches: from `start`, bounded by `bound`; its writes reach `mark`.
    struct Claim: Sendable {
        let id: Int
        let source: Int
        let start: Int64
        /// Where its request ends (exclusive): the bound may only move closer.
        let requestEnd: Int64
        let bound: SegmentBound
        let mark: BodyWriter.Mark
    }

    /// What a connection gets when it asks for work.
    enum Work {
        case fetch(Claim)
        /// Every byte is taken, but segments of others are under way and may yet come back.
        case wait
        /// Nothing is left to fetch, or the source was dropped.
        case done
    }

    private struct State {
        var gaps: [Range<Int64>]
        var active: [Int: Claim] = [:]
        var nextID = 0
        /// Every byte written, by this attempt or kept from earlier ones.
        var written: KeptRanges
        /// What each source's segments wrote in this attempt.
        var fetched: [Int: KeptRanges] = [:]
        var dropped: Set<Int> = []
        /// Bytes each source delivered, sampled once a second (the newest last).
        var samples: [[Int64]] = []
        var delivered: [Int64]
        /// The workers of each source, to stop when it is dropped.
        var workers: [Int: [Task<Void, any Error>]] = [:]
    }

    let whole: Range<Int64>
    let sourceCount: Int
    /// The most a connection takes of a range no one fetches.
    let pieceSize: Int64
    /// The smallest piece a split leaves on either side.
    let minimumSplit: Int64
    private let state: Mutex<State>

    /// The work of fetching `whole`, less what `kept` holds, from `sources` sources, in pieces of `pieceSize`.
    init(whole: Range<Int64>, kept: KeptRanges, sources: Int, pieceSize: Int64, minimumSplit: Int64) {
        self.whole = whole
        sourceCount = sources
        self.pieceSize = pieceSize
        self.minimumSplit = minimumSplit
        var written = kept
        if whole.lowerBound > 0 { written.insert(0..<whole.lowerBound) }
        state = Mutex(State(gaps: kept.gaps(in: whole), written: written, delivered: Array(repeating: 0, count: sources)))
    }

    /// The next segment for a connection of `source`: the lowest range no one fetches, else the back half of the
    /// segment with the most left.
    func work(for source: Int) -> Work {
        state.withLock { state in
            if state.dropped.contains(source) { return .done }
            if let piece = takePiece(&state) { return .fetch(Self.add(piece, source: source, &state)) }
            let largestFirst = state.active.values.map { ($0, $0.bound.remaining) }.sorted { ($0.1, $1.0.start) > ($1.1, $0.0.start) }
            for (claim, _) in largestFirst {
                if let split = claim.bound.split(leaving: minimumSplit) { return .fetch(Self.add(split, source: source, &state)) }
            }
            return state.active.isEmpty ? .done : .wait
        }
    }

    /// The segment of the response an attempt opened with, from `source`: the first piece.
    func opening(from source: Int) -> Claim? {
        state.withLock { state in takePiece(&state).map { Self.add($0, source: source, &state) } }
    }

    /// The first `pieceSize` bytes of the lowest gap.
    private func takePiece(_ state: inout State) -> Range<Int64>? {
        guard let gap = state.gaps.first else { return nil }
        let piece = gap.lowerBound..<min(gap.upperBound, gap.lowerBound + pieceSize)
        if piece.upperBound == gap.upperBound { state.gaps.removeFirst() } else { state.gaps[0] = piece.upperBound..<gap.upperBound }
        return piece
    }

    private static func add(_ range: Range<Int64>, source: Int, _ state: inout State) -> Claim {
        state.nextID += 1
        let claim = Claim(
            id: state.nextID,
            source: source,
            start: range.lowerBound,
            requestEnd: range.upperBound,
            bound: SegmentBound(range),
            mark: BodyWriter.Mark(range.lowerBound)
        )
        state.active[claim.id] = claim
        return claim
    }

    /// A segment's connection stopped, done or not: what it wrote is kept, what it left goes back to the others.
    func release(_ claim: Claim) {
        let left = claim.bound.stop()
        state.withLock { state in
            state.active[claim.id] = nil
            let written = claim.start..<max(claim.start, claim.mark.value)
            state.written.insert(written)
            state.fetched[claim.source, default: KeptRanges()].insert(written)
            let rest = written.upperBound..<max(written.upperBound, left.upperBound)
            if !rest.isEmpty {
                state.gaps.append(rest)
                state.gaps.sort { $0.lowerBound < $1.lowerBound }
            }
        }
    }

    /// Everything written so far, the bytes of segments under way up to their marks included.
    var written: KeptRanges {
        state.withLock { state in
            var written = state.written
            for claim in state.active.values { written.insert(claim.start..<claim.mark.value) }
            return written
        }
    }

    /// Whether every byte of `whole` is written.
    var isComplete: Bool {
        state.withLock { $0.gaps.isEmpty && $0.active.isEmpty }
    }

    /// What `source` fetched in this attempt.
    func fetched(by source: Int) -> KeptRanges {
        state.withLock { $0.fetched[source] ?? KeptRanges() }
    }

    /// The sources not dropped.
    var liveSources: [Int] {
        state.withLock { state in (0..<sourceCount).filter { !state.dropped.contains($0) } }
    }

    func isDropped(_ source: Int) -> Bool {
        state.withLock { $0.dropped.contains(source) }
    }

    /// Gives up `source`: its connections stop, and what they left goes to the others. False when it was already.
    @discardableResult
    func drop(_ source: Int) -> Bool {
        let workers: [Task<Void, any Error>]? = state.withLock { state in
            guard state.dropped.insert(source).inserted else { return nil }
            // What its segments have yet to read goes to the others now; what they read and did not write yet, once
            // they are released.
            for claim in state.active.values where claim.source == source {
                let left = claim.bound.stop()
                if !left.isEmpty { state.gaps.append(left) }
            }
            state.gaps.sort { $0.lowerBound < $1.lowerBound }
            return state.workers[source] ?? []
        }
        for worker in workers ?? [] { worker.cancel() }
        return workers != nil
    }

    /// Notes a connection of `source`, stopped when the source is dropped.
    func register(_ worker: Task<Void, any Error>, of source: Int) {
        let dropped = state.withLock { state in
            state.workers[source, default: []].append(worker)
            return state.dropped.contains(source)
        }
        if dropped { worker.cancel() }
    }

    /// `count` bytes arrived from `source`.
    func delivered(_ count: Int, by source: Int) {
        state.withLock { $0.delivered[source] += Int64(count) }
    }

    /// Takes a sample of what each source delivered; returns the sources that, over the last `window` samples,
    /// delivered less than a quarter of the best one (none while fewer samples were taken, or one source is left).
    func sampleRates(window: Int) -> [Int] {
        state.withLock { state in
            state.samples.append(state.delivered)
            if state.samples.count > window + 1 { state.samples.removeFirst() }
            guard state.samples.count > window, let oldest = state.samples.first else { return [] }
            let live = (0..<sourceCount).filter { !state.dropped.contains($0) }
            guard live.count > 1 else { return [] }
            let rates = live.map { state.delivered[$0] - oldest[$0] }
            let best = rates.max() ?? 0
            return zip(live, rates).filter { $0.1 * 4 < best }.map(\.0)
        }
    }
}
