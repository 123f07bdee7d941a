import Foundation

/// `WWW-Authenticate` from any origin: parsing never traps, and a space it describes names a scheme of letters,
/// digits and '-', for the host and port of the URL it came from.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChallenge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let space = ProtectionSpace(challenge: text, url: "https://Origin.Example.:8443/path") {
        precondition(!space.authenticationMethod.isEmpty)
        precondition(space.authenticationMethod.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" })
        precondition(space.host == "origin.example" && space.port == 8443 && !space.isProxy)
        precondition(space.covers("https://origin.example:8443/other"))
    }
    return 0
}
