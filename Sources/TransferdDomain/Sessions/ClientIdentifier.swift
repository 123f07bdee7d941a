/// Names clients choose for resources (session identifiers, file ids): 1–200 characters of `[A-Za-z0-9._-]`, so
/// that they are safe in URLs and logs. They never name anything on disk.
package enum ClientIdentifier {
    package static func isValid(_ identifier: String) -> Bool {
        (1...200).contains(identifier.utf8.count)
            && identifier.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
    }

    /// `identifier`, or a 400 problem naming `field`.
    @discardableResult
    package static func validate(_ identifier: String, field: String) throws(DomainError) -> String {
        guard isValid(identifier) else {
            throw .invalidField(field, requirement: "must be 1 to 200 characters of A-Z, a-z, 0-9, '.', '_' or '-'")
        }
        return identifier
    }
}
