import Foundation

/// `Retry-After` from any server: parsing never traps, a wait is never negative, and a date read is written and
/// read back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRetryAfter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let wait = RetryAfter.parse(text, now: Date(timeIntervalSince1970: 1_800_000_000)) {
        precondition(wait >= .zero, "negative wait for \(text)")
    }
    if let date = HTTPDate.date(from: text) {
        precondition(HTTPDate.date(from: HTTPDate.string(from: date)) == date, "\(text) does not read back")
    }
    return 0
}
