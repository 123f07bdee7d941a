import Foundation

/// The destination policy on URL text and addresses: parsing never traps, a canonical URL is canonical again (the
/// spelling the guard pins is the one the client requests), and any 4 or 16 bytes are judged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDestination(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let destination = try? Destination(text) {
        let again = try? Destination(destination.url)
        precondition(again?.url == destination.url && again?.host == destination.host, "not canonical: \(text)")
        precondition(destination.host == destination.host.lowercased() && !destination.host.hasSuffix("."))
        precondition((1...65535).contains(destination.port))
    }
    let policy = DestinationPolicy()
    if let address = IPAddress(text) { _ = policy.refusal(for: address) }
    for length in [4, 16] where bytes.count >= length {
        _ = policy.refusal(for: IPAddress(bytes: Array(bytes.prefix(length))))
    }
    return 0
}
