import Foundation

/// A transfer's rate over its last few seconds, from samples of its byte count at the times the service reported
/// them (the progress events' times, so that every client of the same task shows the same rate).
struct RateMeter: Sendable {
    private var samples: [(at: Date, bytes: Int64)] = []
    /// How far back the rate looks.
    let window: TimeInterval

    init(window: TimeInterval = 5) {
        self.window = window
    }

    /// `bytes` had been moved at `date`.
    mutating func record(_ bytes: Int64, at date: Date) {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }  // started again from an offset
        samples.append((date, bytes))
        // Keeps one sample older than the window, as the start of the span the rate covers.
        while samples.count > 2, date.timeIntervalSince(samples[1].at) >= window { samples.removeFirst() }
    }

    /// Bytes per second over the window; nil until two samples span some time.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let span = last.at.timeIntervalSince(first.at)
        guard span > 0 else { return nil }
        return Double(last.bytes - first.bytes) / span
    }

    /// Seconds until `total` at the current rate; nil when unknown.
    func secondsRemaining(toward total: Int64) -> Double? {
        guard total > 0, let rate = bytesPerSecond, rate > 0, let last = samples.last else { return nil }
        return Double(max(0, total - last.bytes)) / rate
    }
}
