import Foundation
import Testing
import TransferdDomain

/// The ranges a download from several sources keeps past its prefix: merged as they grow, and the gaps between them
/// what a later attempt fetches.
@Suite struct KeptRangesTests {
    @Test(
        arguments: [
            ([0..<10, 20..<30], [0..<10, 20..<30]),
            ([20..<30, 0..<10, 10..<20], [0..<30]),
            ([5..<15, 0..<10, 12..<18], [0..<18]),
            ([40..<50, 10..<20, 15..<45], [10..<50]),
            ([3..<3, 7..<9], [7..<9]),
        ] as [([Range<Int64>], [Range<Int64>])]
    )
    func rangesMergeWhenTheyTouchOrOverlap(inserted: [Range<Int64>], kept: [Range<Int64>]) {
        #expect(KeptRanges(inserted).ranges == kept)
    }

    @Test func theGapsAreWhatIsLeftToFetch() {
        let kept = KeptRanges([0..<10, 20..<30, 40..<45])
        #expect(kept.gaps(in: 0..<50) == [10..<20, 30..<40, 45..<50])
        #expect(kept.gaps(in: 25..<42) == [30..<40])
        #expect(KeptRanges().gaps(in: 5..<9) == [5..<9])
        #expect(kept.prefixEnd == 10)
        #expect(kept.afterPrefix.ranges == [20..<30, 40..<45])
        #expect(KeptRanges([20..<30]).prefixEnd == 0)
        #expect(kept.byteCount == 25)
        #expect(kept.intersects(29..<31) && !kept.intersects(30..<40))
    }

    @Test func theyAreStoredAsPairsAndRefusedWhenMalformed() throws {
        let kept = KeptRanges([20..<30, 40..<45])
        let json = String(decoding: try JSONEncoder().encode(kept), as: UTF8.self)
        #expect(json == "[[20,30],[40,45]]")
        #expect(try JSONDecoder().decode(KeptRanges.self, from: Data(json.utf8)) == kept)
        for malformed in ["[[5]]", "[[9,3]]", "[[-1,4]]", "[[1,2,3]]"] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(KeptRanges.self, from: Data(malformed.utf8)) }
        }
    }
}
