/// Percent-encoding the way SigV4 and S3 want it (RFC 3986): every byte but `A–Z a–z 0–9 - _ . ~` as `%XX` in
/// upper-case hex, and `/` kept only in a path. Foundation's encoders keep other characters (`$`, `+`, `=`), which
/// would change the signature's canonical form from what the store computes.
enum URIEncoding {
    /// An object key as a URL path: each byte encoded, the `/` between segments kept.
    static func path(_ text: String) -> String {
        encode(text, keeping: UInt8(ascii: "/"))
    }

    /// A query name or value, `/` included.
    static func component(_ text: String) -> String {
        encode(text, keeping: nil)
    }

    private static func encode(_ text: String, keeping extra: UInt8?) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || byte == extra {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
