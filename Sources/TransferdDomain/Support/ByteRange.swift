import Foundation

/// A single byte range of an HTTP `Range` request (RFC 9110 §14.1.2), resolved against a representation's size.
package enum ByteRange: Equatable {
    /// Serve the whole representation (no `Range`, a multi-range or non-bytes request, which a server may ignore).
    case whole
    case partial(ClosedRange<Int64>)
    /// No part of the requested range lies inside the representation: 416.
    case unsatisfiable

    package init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        switch (Int64(parts[0]), Int64(parts[1]), parts[0].isEmpty) {
        case (.some(let first), .some(let last), _) where first <= last:
            self = first < size ? .partial(first...min(last, size - 1)) : .unsatisfiable
        case (.some(let first), .none, _) where parts[1].isEmpty:
            self = first < size ? .partial(first...(size - 1)) : .unsatisfiable
        case (.none, .some(let suffix), true):
            self = suffix > 0 && size > 0 ? .partial(max(0, size - suffix)...(size - 1)) : .unsatisfiable
        default:
            // A syntactically invalid range is ignored (RFC 9110 §14.2).
            self = .whole
        }
    }
}
