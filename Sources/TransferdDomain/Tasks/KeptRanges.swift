/// The byte ranges of a partial file that a download fetched from several sources has made durable past its prefix
/// (the prefix is `partialBytes`): sorted, disjoint and apart, stored as `[[lower, upper], …]`. A later attempt fetches
/// only the gaps.
package struct KeptRanges: Sendable, Equatable, Codable {
    package private(set) var ranges: [Range<Int64>]

    package init(_ ranges: [Range<Int64>] = []) {
        self.ranges = []
        for range in ranges { insert(range) }
    }

    package var isEmpty: Bool { ranges.isEmpty }

    /// How many bytes the ranges hold.
    package var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    /// Adds `range`, merging it with the ranges it overlaps or touches.
    package mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < merged.lowerBound || existing.lowerBound > merged.upperBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Where the contiguous bytes from offset 0 end.
    package var prefixEnd: Int64 {
        ranges.first.map { $0.lowerBound == 0 ? $0.upperBound : 0 } ?? 0
    }

    /// The ranges after the prefix: what a checkpoint stores beside `partialBytes`.
    package var afterPrefix: KeptRanges {
        var rest = self
        if rest.prefixEnd > 0 { rest.ranges.removeFirst() }
        return rest
    }

    /// The parts of `whole` not kept.
    package func gaps(in whole: Range<Int64>) -> [Range<Int64>] {
        var gaps: [Range<Int64>] = []
        var position = whole.lowerBound
        for range in ranges where range.upperBound > position && range.lowerBound < whole.upperBound {
            if range.lowerBound > position { gaps.append(position..<range.lowerBound) }
            position = max(position, range.upperBound)
        }
        if position < whole.upperBound { gaps.append(position..<whole.upperBound) }
        return gaps
    }

    package init(from decoder: any Decoder) throws {
        let pairs = try [[Int64]](from: decoder)
        var ranges: [Range<Int64>] = []
        for pair in pairs {
            guard pair.count == 2, pair[0] >= 0, pair[0] < pair[1] else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a kept range is [lower, upper]"))
            }
            ranges.append(pair[0]..<pair[1])
        }
        self.init(ranges)
    }

    package func encode(to encoder: any Encoder) throws {
        try ranges.map { [$0.lowerBound, $0.upperBound] }.encode(to: encoder)
    }
}

extension KeptRanges {
    /// Whether any kept byte lies in `range`.
    package func intersects(_ range: Range<Int64>) -> Bool {
        ranges.contains { $0.overlaps(range) }
    }
}
