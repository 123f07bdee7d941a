/// An unkeyed container: an array's elements, written as they are encoded.
struct ArrayContainer: UnkeyedEncodingContainer {
    let encoder: ByteEncoder
    let frame: Int

    var codingPath: [any CodingKey] { [] }
    var count: Int { encoder.count(of: frame) }

    mutating func encodeNil() throws {
        encoder.beginElement(of: frame)
        encoder.output.append("null")
    }

    mutating func encode(_ value: Bool) throws {
        encoder.beginElement(of: frame)
        encoder.output.append(value ? "true" : "false")
    }

    mutating func encode(_ value: String) throws {
        encoder.beginElement(of: frame)
        encoder.output.string(value)
    }

    mutating func encode(_ value: Double) throws {
        encoder.beginElement(of: frame)
        try encoder.output.number(value, codingPath: [])
    }

    mutating func encode(_ value: Float) throws {
        encoder.beginElement(of: frame)
        try encoder.output.number(value, codingPath: [])
    }

    mutating func encode(_ value: Int) throws { integer(value) }
    mutating func encode(_ value: Int8) throws { integer(value) }
    mutating func encode(_ value: Int16) throws { integer(value) }
    mutating func encode(_ value: Int32) throws { integer(value) }
    mutating func encode(_ value: Int64) throws { integer(value) }
    mutating func encode(_ value: UInt) throws { integer(value) }
    mutating func encode(_ value: UInt8) throws { integer(value) }
    mutating func encode(_ value: UInt16) throws { integer(value) }
    mutating func encode(_ value: UInt32) throws { integer(value) }
    mutating func encode(_ value: UInt64) throws { integer(value) }

    private func integer<T: BinaryInteger>(_ value: T) {
        encoder.beginElement(of: frame)
        encoder.output.integer(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.beginElement(of: frame)
        try encoder.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.beginElement(of: frame)
        return KeyedEncodingContainer(ObjectContainer<NestedKey>(encoder: encoder, frame: encoder.open(object: true)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.beginElement(of: frame)
        return ArrayContainer(encoder: encoder, frame: encoder.open(object: false))
    }

    mutating func superEncoder() -> any Encoder {
        preconditionFailure("StreamingJSONEncoder does not support superEncoder()")
    }
}
