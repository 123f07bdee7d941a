import Foundation

/// A transfer's rate over its last few seconds, from samples of its byte count at the times the service reported
/// them (the progress events' times, so that every client of the same task shows the same rate), or at which a
/// local save wrote them.
struct RateMeter: Sendable {
    /// Samples at least `resolution` apart (a save reports every block it writes; a few a second are enough).
    private var samples: [(at: Date, bytes: Int64)] = []
    /// The newest count, which ends the span the rate covers.
    private var latest: (at: Date, bytes: Int64)?
    /// How far back the rate looks.
    let window: TimeInterval
    private let resolution: TimeInterval = 0.1

    init(window: TimeInterval = 5) {
        self.window = window
    }

    /// `bytes` had been moved at `date`.
    mutating func record(_ bytes: Int64, at date: Date) {
        if let latest, bytes < latest.bytes { samples.removeAll() }  // started again from an offset
        latest = (date, bytes)
        if let last = samples.last, date.timeIntervalSince(last.at) < resolution { return }
        samples.append((date, bytes))
        // Keeps one sample older than the window, as the start of the span the rate covers.
        while samples.count > 2, date.timeIntervalSince(samples[1].at) >= window { samples.removeFirst() }
    }

    /// Bytes per second over the window; nil until two samples span some time.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let latest else { return nil }
        let span = latest.at.timeIntervalSince(first.at)
        guard span > 0 else { return nil }
        return Double(latest.bytes - first.bytes) / span
    }

    /// Seconds until `total` at the current rate; nil when unknown.
    func secondsRemaining(toward total: Int64) -> Double? {
        guard total > 0, let rate = bytesPerSecond, rate > 0, let latest else { return nil }
        return Double(max(0, total - latest.bytes)) / rate
    }
}
