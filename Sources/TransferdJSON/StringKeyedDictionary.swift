/// A `[String: …]` dictionary, which `StreamingJSONEncoder` writes with its members sorted by key: its own
/// `encode(to:)` follows the dictionary's order, which changes from one process to the next.
protocol StringKeyedDictionary {
    func encodeSorted(to encoder: any Encoder) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    func encodeSorted(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (key, value) in sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: MemberKey(stringValue: key))
        }
    }
}
