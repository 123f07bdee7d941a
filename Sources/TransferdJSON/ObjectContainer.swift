/// A keyed container: an object's members, written as they are encoded.
struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ByteEncoder
    let frame: Int

    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        encoder.output.append("null")
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        encoder.output.append(value ? "true" : "false")
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        encoder.output.string(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        try encoder.output.number(value, codingPath: [key])
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        try encoder.output.number(value, codingPath: [key])
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    private func integer<T: BinaryInteger>(_ value: T, _ key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        encoder.output.integer(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.beginMember(of: frame, key: key.stringValue)
        try encoder.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.beginMember(of: frame, key: key.stringValue)
        return KeyedEncodingContainer(ObjectContainer<NestedKey>(encoder: encoder, frame: encoder.open(object: true)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.beginMember(of: frame, key: key.stringValue)
        return ArrayContainer(encoder: encoder, frame: encoder.open(object: false))
    }

    mutating func superEncoder() -> any Encoder {
        preconditionFailure("StreamingJSONEncoder does not support superEncoder()")
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        preconditionFailure("StreamingJSONEncoder does not support superEncoder(forKey:)")
    }
}
