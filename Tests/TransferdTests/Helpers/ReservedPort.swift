import Foundation

/// A loopback port held by a bound socket that does not listen: connections to it are refused, and no other
/// server of the test run can take it until `release()`, after which a test's own server binds it.
final class ReservedPort {
    let port: Int
    private var descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func release() {
        close(descriptor)
        descriptor = -1
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
