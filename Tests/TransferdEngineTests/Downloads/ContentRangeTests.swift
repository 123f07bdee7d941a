import Testing
import TransferdEngine

/// A `Content-Range` as a continued download reads it.
@Suite struct ContentRangeTests {
    @Test func contentRangeIsParsed() {
        let range = ContentRange("bytes 100-199/1000")
        #expect(range.map { [$0.first, $0.last, $0.completeLength] } == [100, 199, 1000])
        #expect(ContentRange("bytes 100-199/*")?.completeLength == nil)
        #expect(ContentRange("bytes 200-100/1000") == nil)
        #expect(ContentRange("items 1-2/3") == nil)
    }
}
