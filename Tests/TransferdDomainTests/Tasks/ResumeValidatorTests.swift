import Crypto
import Foundation
import Testing
import TransferdDomain

/// Which responses can be continued by range, and how their ranges and tokens are read.
@Suite struct ResumeValidatorTests {
    @Test func aStrongETagOrLastModifiedWithRangesIsAValidator() throws {
        let lastModified = "Sun, 22 Nov 2026 10:00:00 GMT"
        let strong = ResumeValidator.of(headers: ["etag": "\"a\"", "accept-ranges": "bytes"], statusCode: 200, decoded: false)
        #expect(try strong.get() == ResumeValidator(etag: "\"a\""))
        #expect(try strong.get().ifRange == "\"a\"")

        let weak = ResumeValidator.of(
            headers: ["etag": "W/\"a\"", "last-modified": lastModified, "accept-ranges": "none, bytes"],
            statusCode: 200,
            decoded: false
        )
        #expect(try weak.get().ifRange == lastModified, "a weak ETag cannot be used with If-Range")

        let partial = ResumeValidator.of(headers: ["etag": "\"a\""], statusCode: 206, decoded: false)
        #expect((try? partial.get()) != nil, "a 206 proves ranges without Accept-Ranges")
    }

    /// Found by fuzzing: an empty validator would have gone out as an empty `If-Range`.
    @Test func anEmptyETagOrDateValidatesNothing() {
        let empty = ResumeValidator.of(
            headers: ["etag": "", "last-modified": " ", "accept-ranges": "bytes"],
            statusCode: 206,
            decoded: false
        )
        #expect(empty == .failure(.noValidator))
    }

    @Test func otherResponsesSayWhyTheyCannotBeContinued() {
        let reason = { (headers: [String: String], decoded: Bool) -> ResumeValidator.NotResumableReason? in
            if case .failure(let reason) = ResumeValidator.of(headers: headers, statusCode: 200, decoded: decoded) { return reason }
            return nil
        }
        #expect(reason(["etag": "\"a\""], false) == .noAcceptRanges)
        #expect(reason(["etag": "W/\"a\"", "accept-ranges": "bytes"], false) == .noValidator)
        #expect(reason(["etag": "\"a\"", "accept-ranges": "bytes"], true) == .contentDecoded)
    }

    @Test func resumeDataRoundTripsAndRefusesAnotherKey() throws {
        let resumeData = ResumeData(
            sessionID: 1,
            taskID: 2,
            url: "http://a/",
            bytes: 3,
            expectedBytes: 4,
            validator: ResumeValidator(etag: "\"a\"")
        )
        let signer = ResumeData.Signer(key: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        let token = try signer.token(for: resumeData)
        #expect(try signer.decode(token) == resumeData)
        #expect(throws: DomainError.self) {
            try ResumeData.Signer(key: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }).decode(token)
        }
    }
}
