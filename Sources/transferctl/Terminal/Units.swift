import Foundation

/// Sizes, rates and durations as people read them: binary units (KiB, MiB, …), one decimal.
enum Units {
    /// `1.5 MiB`, `512 B`.
    static func bytes(_ count: Int64) -> String {
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count)
        var unit = 0
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    /// `4.2 MiB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// `45s`, `3m05s`, `2h10m`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return String(format: "%dm%02ds", total / 60, total % 60) }
        return String(format: "%dh%02dm", total / 3600, total % 3600 / 60)
    }

    /// `42%` of `done` out of `total`; nil while the total is unknown.
    static func percent(_ done: Int64, of total: Int64) -> String? {
        guard total > 0 else { return total == 0 ? "100%" : nil }
        return "\(Int(Double(done) / Double(total) * 100))%"
    }
}
