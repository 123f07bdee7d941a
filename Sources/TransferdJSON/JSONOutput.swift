import Foundation

/// JSON text as it is written: the scalars (strings escaped, numbers, dates as ISO 8601 with milliseconds in
/// UTC) appended to UTF-8 bytes.
package struct JSONOutput {
    package var bytes: [UInt8] = []

    package init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// A string in quotes, with `"`, `\` and the control characters escaped; everything else as its UTF-8.
    package mutating func string(_ value: String) {
        var value = value
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8 { utf8 in
            var plain = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain..<index]))
                escape(byte)
                plain = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case UInt8(ascii: "\n"): append("\\n")
        case UInt8(ascii: "\r"): append("\\r")
        case UInt8(ascii: "\t"): append("\\t")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        default:
            append("\\u00")
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }

    package mutating func integer<T: BinaryInteger>(_ value: T) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.appendDecimal(UInt64(value.magnitude))
    }

    /// A finite number: integral values without a fraction (`1`, not `1.0`), others in Swift's shortest form that
    /// reads back as the same value. JSON has no NaN or infinity, so those are an error, as in Foundation.
    package mutating func number<T: BinaryFloatingPoint & LosslessStringConvertible>(_ value: T, codingPath: [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: codingPath, debugDescription: "\(value) is not a number JSON can hold")
            )
        }
        if value == value.rounded(), value.magnitude < 1e15 {
            integer(Int64(value))
        } else {
            var text = value.description
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    /// `"yyyy-MM-ddTHH:mm:ss.SSSZ"`, in UTC.
    package mutating func date(_ value: Date) {
        bytes.append(UInt8(ascii: "\""))
        UTCDateTime(value).write(separator: UInt8(ascii: "T"), to: &bytes)
        append("Z\"")
    }
}
