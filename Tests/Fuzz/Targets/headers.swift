import Foundation

/// `Range` against any size, `Upload-Metadata`, and the validators a response gives for `If-Range`: nothing traps,
/// and a range served lies inside the representation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 8 else { return 0 }
    let representation = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) } & Int64.max
    let text = String(decoding: bytes.dropFirst(8), as: UTF8.self)
    if case .partial(let range) = ByteRange(header: text, size: representation) {
        precondition(range.lowerBound >= 0 && range.upperBound < representation, "\(range) outside \(representation)")
    }
    _ = try? TusMetadata.parse(text)
    let fields = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let headers = ["etag": fields.first ?? "", "last-modified": fields.dropFirst().first ?? "", "accept-ranges": fields.last ?? ""]
    if case .success(let validator) = ResumeValidator.of(headers: headers, statusCode: 206, decoded: false) {
        precondition(!validator.ifRange.isEmpty && !(validator.etag?.hasPrefix("W/") ?? false))
    }
    return 0
}
