/// Checks that bytes are one JSON text exactly as RFC 8259 writes it, before a lenient decoder reads them: no trailing
/// commas, comments, single quotes, unquoted keys, `NaN`, leading zeros or raw control characters in strings, and
/// nesting at most `maximumDepth` deep (a deeper text would take the decoder's stack). Foundation's `JSONDecoder`
/// accepts some of these, so a request's meaning would depend on the parser that reads it.
///
/// A refusal names the byte where the text stops being JSON, so that a client sees what to mend.
package enum StrictJSON {
    /// Nesting deeper than this is refused.
    package static let maximumDepth = 64

    /// Why a text is not JSON: what was found, and where.
    package struct Violation: Error, Equatable, CustomStringConvertible {
        /// The offset of the offending byte, from 0.
        package let offset: Int
        package let line: Int
        package let column: Int
        package let reason: String

        package var description: String { "\(reason) at line \(line), column \(column) (byte \(offset))" }
    }

    /// Throws the first violation in `bytes`.
    package static func validate(_ bytes: some Collection<UInt8>) throws(Violation) {
        let array = Array(bytes)
        try array.withUnsafeBufferPointer { buffer throws(Violation) in
            var scanner = Scanner(bytes: buffer)
            scanner.skipWhitespace()
            try scanner.value(depth: 0)
            scanner.skipWhitespace()
            if scanner.position < buffer.count { throw scanner.violation("unexpected \(scanner.describeCurrent()) after the JSON value") }
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        mutating func value(depth: Int) throws(Violation) {
            guard let byte = current else { throw violation("the text ends where a value should begin") }
            switch byte {
            case UInt8(ascii: "{"): try container(depth: depth + 1, closing: UInt8(ascii: "}"))
            case UInt8(ascii: "["): try container(depth: depth + 1, closing: UInt8(ascii: "]"))
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: throw violation("unexpected \(describeCurrent()) where a value should begin")
            }
        }

        /// An object or an array (`closing` tells which): members or values separated by commas, none trailing.
        mutating func container(depth: Int, closing: UInt8) throws(Violation) {
            if depth > StrictJSON.maximumDepth { throw violation("nesting deeper than \(StrictJSON.maximumDepth) levels") }
            position += 1
            skipWhitespace()
            if current == closing {
                position += 1
                return
            }
            while true {
                if closing == UInt8(ascii: "}") { try member(depth: depth) } else { try value(depth: depth) }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case closing:
                    position += 1
                    return
                default: throw violation("unexpected \(describeCurrent()) where `,` or `\(Character(Unicode.Scalar(closing)))` should be")
                }
            }
        }

        /// An object's member: a quoted name, `:`, a value.
        mutating func member(depth: Int) throws(Violation) {
            guard current == UInt8(ascii: "\"") else {
                throw violation("unexpected \(describeCurrent()) where a member's quoted name should be")
            }
            try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw violation("unexpected \(describeCurrent()) where `:` should be") }
            position += 1
            skipWhitespace()
            try value(depth: depth)
        }

        /// A string: escapes as RFC 8259 lists them, no raw control characters; UTF-8 is the decoder's to check.
        mutating func string() throws(Violation) {
            position += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return
                case UInt8(ascii: "\\"):
                    position += 1
                    guard let escaped = current else { break }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            position += 1
                            guard let digit = current, digit.isHexDigit else {
                                throw violation("a `\\u` escape needs four hexadecimal digits")
                            }
                        }
                    } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                        throw violation("`\\\(Character(Unicode.Scalar(escaped)))` is not a JSON escape")
                    }
                    position += 1
                case 0x00..<0x20:
                    throw violation("a control character (0x\(String(byte, radix: 16))) must be escaped in a string")
                default:
                    position += 1
                }
            }
            throw violation("the text ends inside a string")
        }

        mutating func number() throws(Violation) {
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, first.isDigit else { throw violation("a number needs a digit after `-`") }
            position += 1
            if first == UInt8(ascii: "0"), let next = current, next.isDigit { throw violation("a number may not have a leading zero") }
            digits()
            if current == UInt8(ascii: ".") {
                position += 1
                guard current?.isDigit == true else { throw violation("a number needs a digit after `.`") }
                digits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard current?.isDigit == true else { throw violation("a number needs a digit in its exponent") }
                digits()
            }
        }

        mutating func digits() {
            while current?.isDigit == true { position += 1 }
        }

        mutating func literal(_ word: String) throws(Violation) {
            for expected in word.utf8 {
                guard current == expected else { throw violation("unexpected \(describeCurrent()); did you mean `\(word)`?") }
                position += 1
            }
        }

        /// The current byte as a client would read it in a message.
        func describeCurrent() -> String {
            guard let byte = current else { return "end of text" }
            return (0x21..<0x7F).contains(byte) ? "`\(Character(Unicode.Scalar(byte)))`" : "byte 0x\(String(byte, radix: 16))"
        }

        func violation(_ reason: String) -> Violation {
            let offset = min(position, bytes.count)
            var line = 1
            var lineStart = 0
            for index in 0..<offset where bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            return Violation(offset: offset, line: line, column: offset - lineStart + 1, reason: reason)
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
