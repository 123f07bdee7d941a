import Testing
import TransferdDomain

@testable import TransferdEngine

/// The acknowledged prefix of a multipart upload whose parts the store acknowledges in any order: only parts 1…n,
/// each acknowledged, are kept, whatever came in after a gap.
struct AcknowledgedPartsTests {
    static func part(_ number: Int) -> ObjectUploadProgress.Part {
        ObjectUploadProgress.Part(number: number, etag: "\"\(number)\"", checksumSHA256: nil, size: 8 << 20)
    }

    @Test(
        arguments: [
            // acknowledged in this order, after the parts kept → the prefix kept
            (kept: 0, order: [1, 2, 3], prefix: [1, 2, 3]),
            (kept: 0, order: [2, 3], prefix: []),
            (kept: 0, order: [2, 3, 1], prefix: [1, 2, 3]),
            (kept: 0, order: [3, 1], prefix: [1]),
            (kept: 0, order: [3, 1, 2, 4], prefix: [1, 2, 3, 4]),
            (kept: 0, order: [1, 2, 4, 5, 6, 7, 8], prefix: [1, 2]),
            (kept: 2, order: [4, 3], prefix: [1, 2, 3, 4]),
            (kept: 2, order: [4], prefix: [1, 2]),
            (kept: 2, order: [], prefix: [1, 2]),
        ]
    )
    func theKeptPrefixEndsAtTheFirstPartNotAcknowledged(kept: Int, order: [Int], prefix: [Int]) {
        let upload = ObjectUploadProgress(uploadId: "u", checksums: false, partSize: 8 << 20, parts: (0..<kept).map { Self.part($0 + 1) })
        var parts = AcknowledgedParts(upload)
        for number in order { parts.acknowledge(Self.part(number)) }
        #expect(parts.upload.parts.map(\.number) == prefix)
        #expect(parts.upload.bytes == Int64(prefix.count) << 23)
        #expect(parts.upload.uploadId == "u")
    }
}
