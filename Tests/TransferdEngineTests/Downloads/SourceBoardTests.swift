import Testing
import TransferdDomain

@testable import TransferdEngine

/// The board a download over several connections and sources shares: the lowest gap first, then the back half of
/// the segment with the most left; what a stopped segment left goes back; a dropped source gets no more.
@Suite struct SourceBoardTests {
    static func claim(_ work: SourceBoard.Work) throws -> SourceBoard.Claim {
        guard case .fetch(let claim) = work else { throw Unexpected(work: "\(work)") }
        return claim
    }

    struct Unexpected: Error { let work: String }

    /// Reads `count` bytes of a claim and writes them (its mark follows).
    static func read(_ claim: SourceBoard.Claim, _ count: Int64) {
        _ = claim.bound.take(Int(count))
        claim.mark.advance(to: claim.mark.value + count)
    }

    @Test func connectionsSplitTheSegmentWithTheMostLeft() throws {
        let board = SourceBoard(whole: 0..<1000, kept: KeptRanges(), sources: 2, pieceSize: 1000, minimumSplit: 100)
        let opening = try #require(board.opening(from: 0))
        #expect((opening.start, opening.requestEnd) == (0, 1000))
        Self.read(opening, 200)
        let second = try Self.claim(board.work(for: 1))
        #expect((second.start, second.requestEnd) == (600, 1000), "the back half of the 800 bytes left")
        #expect(opening.bound.end == 600)
        let third = try Self.claim(board.work(for: 1))
        #expect((third.start, third.requestEnd) == (400, 600), "the opening segment had 400 left, the second 400: the first found")
        for (claim, count) in [(opening, 150), (second, 300), (third, 150)] as [(SourceBoard.Claim, Int64)] { Self.read(claim, count) }
        guard case .wait = board.work(for: 0) else { throw Unexpected(work: "no wait: no segment has 200 bytes left") }
    }

    @Test func piecesAreTakenFromTheFrontBeforeAnySplit() throws {
        let board = SourceBoard(whole: 0..<1000, kept: KeptRanges([500..<600]), sources: 3, pieceSize: 300, minimumSplit: 100)
        let claims = try [#require(board.opening(from: 0))] + (1...3).map { try Self.claim(board.work(for: $0 % 3)) }
        #expect(claims.map { $0.start..<$0.requestEnd } == [0..<300, 300..<500, 600..<900, 900..<1000])
        let split = try Self.claim(board.work(for: 1))
        #expect(split.start..<split.requestEnd == 150..<300, "then the back half of the segment with the most left")
    }

    @Test func whatAStoppedSegmentLeftGoesBackAndIsKept() throws {
        let board = SourceBoard(whole: 100..<1000, kept: KeptRanges([300..<400]), sources: 2, pieceSize: 1000, minimumSplit: 50)
        #expect(board.written.ranges == [0..<100, 300..<400])
        let first = try #require(board.opening(from: 0))
        #expect((first.start, first.requestEnd) == (100, 300), "a gap ends where kept bytes start")
        Self.read(first, 120)
        board.release(first)
        #expect(board.written.ranges == [0..<220, 300..<400])
        let next = try Self.claim(board.work(for: 1))
        #expect((next.start, next.requestEnd) == (220, 300), "the rest of the broken segment, before the higher gap")
        #expect(board.fetched(by: 0).ranges == [100..<220])
        #expect(!board.isComplete)
    }

    @Test func aDroppedSourceGetsNoMoreAndItsSegmentIsStopped() throws {
        let board = SourceBoard(whole: 0..<1000, kept: KeptRanges(), sources: 2, pieceSize: 1000, minimumSplit: 100)
        let opening = try #require(board.opening(from: 0))
        Self.read(opening, 100)
        #expect(board.drop(0))
        #expect(!board.drop(0), "once")
        #expect(opening.bound.remaining == 0)
        guard case .done = board.work(for: 0) else { throw Unexpected(work: "no done") }
        let rest = try Self.claim(board.work(for: 1))
        #expect((rest.start, rest.requestEnd) == (100, 1000), "what the dropped segment had yet to read")
        board.release(opening)
        #expect(board.liveSources == [1])
    }

    @Test func aSourceFarBehindTheFastestIsNamedOnceTheWindowIsFull() {
        let board = SourceBoard(whole: 0..<1000, kept: KeptRanges(), sources: 3, pieceSize: 1000, minimumSplit: 100)
        for _ in 0..<3 {
            #expect(board.sampleRates(window: 3).isEmpty)
            board.delivered(100, by: 0)
            board.delivered(30, by: 1)
            board.delivered(20, by: 2)
        }
        #expect(board.sampleRates(window: 3) == [2], "20 is under a quarter of 100; 30 is not")
    }
}
