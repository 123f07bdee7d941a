import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

@testable import TransferdAPI
@testable import transferd

@Suite struct ByteRangeTests {
    @Test func parsesTheThreeFormsOfASingleRange() {
        #expect(ByteRange(header: "bytes=0-9", size: 100) == .partial(0...9))
        #expect(ByteRange(header: "bytes=90-", size: 100) == .partial(90...99))
        #expect(ByteRange(header: "bytes=-10", size: 100) == .partial(90...99))
    }

    @Test func clampsTheEndToTheSize() {
        #expect(ByteRange(header: "bytes=50-1000", size: 100) == .partial(50...99))
        #expect(ByteRange(header: "bytes=-1000", size: 100) == .partial(0...99))
    }

    @Test func aRangeOutsideTheContentIsUnsatisfiable() {
        #expect(ByteRange(header: "bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-0", size: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-0", size: 100) == .unsatisfiable)
    }

    @Test func invalidOrMultipleRangesServeTheWhole() {
        #expect(ByteRange(header: nil, size: 100) == .whole)
        #expect(ByteRange(header: "bytes=9-0", size: 100) == .whole)
        #expect(ByteRange(header: "items=0-1", size: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange(header: "bytes=a-b", size: 100) == .whole)
    }
}
