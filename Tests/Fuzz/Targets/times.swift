import Foundation

/// `Retry-After` from any server: parsing never traps, a wait is never negative, and a date read is written and
/// read back the same. Beside it, the other text of times a client sends: a bandwidth schedule (a session's, a
/// tenant's) never traps, is written back as one that reads the same, and its next change is after the moment asked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let wait = RetryAfter.parse(text, now: Date(timeIntervalSince1970: 1_800_000_000)) {
        precondition(wait >= .zero, "negative wait for \(text)")
    }
    if let date = HTTPDate.date(from: text) {
        precondition(HTTPDate.date(from: HTTPDate.string(from: date)) == date, "\(text) does not read back")
    }
    if let schedule = try? BandwidthSchedule(utc: text) {
        precondition((try? BandwidthSchedule(utc: schedule.description)) == schedule, "\(text) does not read back")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = schedule.rate(at: now)
        if let next = schedule.nextChange(after: now) { precondition(next > now, "\(text) changes before now") }
    }
    return 0
}
