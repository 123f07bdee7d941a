import Foundation
import TransferdJSON

/// Request bodies: `StrictJSON` on any bytes. It never traps, and a refusal points inside the text. (What it accepts
/// the decoder may still refuse: a number past `Double`'s range, or invalid UTF-8, which the decoder checks.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    do {
        try StrictJSON.validate(bytes)
    } catch {
        precondition(error.offset >= 0 && error.offset <= size && error.line >= 1 && error.column >= 1)
    }
    return 0
}
