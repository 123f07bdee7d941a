import Foundation

/// A multipart upload's framing from a client's form (field, fields), an uploader's file name and an origin's content
/// type: whatever a form the validation lets through holds, the framing has exactly the parts and header lines it
/// describes, split at every CR and LF as the most lenient parser would, and each name reads back as given.
///
/// The input is the file field, the file name, the content type, then field names and values, separated by NUL.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let parts = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        .split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
    guard parts.count >= 3 else { return 0 }
    var fields: [String: String] = [:]
    for index in stride(from: 3, to: parts.count - 1, by: 2) { fields[parts[index]] = parts[index + 1] }
    guard let form = try? MultipartForm(validating: parts[0], filename: nil, fields: fields.isEmpty ? nil : fields) else { return 0 }
    let boundary = "transferd-fuzz"
    let framing = MultipartFraming(form: form, filename: parts[1], fileContentType: parts[2], boundary: boundary)

    var expected: [String] = []
    for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
        expected += ["--\(boundary)", "Content-Disposition: form-data; name=\"\(name)\"", "", value]
    }
    let filename = MultipartFraming.quotable(parts[1])
    precondition(!filename.utf8.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }, "a quote or backslash in the file name")
    let disposition = "Content-Disposition: form-data; name=\"\(form.field)\"; filename=\"\(filename)\""
    expected += ["--\(boundary)", disposition]
    // Bytes, as a parser reads them: a CR, an LF or a CRLF ends a line.
    var lines: [[UInt8]] = [[]]
    var previous: UInt8 = 0
    for byte in framing.head.utf8 {
        if byte == UInt8(ascii: "\r") || (byte == UInt8(ascii: "\n") && previous != UInt8(ascii: "\r")) {
            lines.append([])
        } else if byte != UInt8(ascii: "\n") {
            lines[lines.count - 1].append(byte)
        }
        previous = byte
    }
    precondition(lines.count == expected.count + 3, "\(lines.count) lines for \(expected.count + 3)")
    precondition(lines.prefix(expected.count).elementsEqual(expected.map { Array($0.utf8) }), "a line is not what the form gives")
    precondition(lines[expected.count].starts(with: "Content-Type: ".utf8), "no content type line where it belongs")
    precondition(lines.suffix(2).allSatisfy(\.isEmpty), "the head does not end in a blank line")
    precondition(framing.tail == "\r\n--\(boundary)--\r\n")
    for name in [form.field] + fields.keys {
        precondition(!name.utf8.contains(UInt8(ascii: "\"")), "a name that ends its quoted string early")
    }
    return 0
}
