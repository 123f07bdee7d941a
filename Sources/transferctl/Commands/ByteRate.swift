import ArgumentParser

/// A rate in bytes per second as written on the command line: `65536`, `512K`, `2M`, `1G` (powers of 1024).
struct ByteRate: ExpressibleByArgument, Sendable {
    var bytesPerSecond: Int64

    init?(argument: String) {
        let multipliers: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        let unit = argument.last.flatMap { multipliers[Character($0.uppercased())] }
        guard let number = Int64(unit == nil ? argument : String(argument.dropLast())), number > 0 else { return nil }
        bytesPerSecond = number * (unit ?? 1)
    }
}
