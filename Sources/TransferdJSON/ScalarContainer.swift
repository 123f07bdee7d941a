/// A single-value container: the value being encoded is one scalar, or one other value in its place.
struct ScalarContainer: SingleValueEncodingContainer {
    let encoder: ByteEncoder

    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {
        encoder.beginScalar()
        encoder.output.append("null")
    }

    mutating func encode(_ value: Bool) throws {
        encoder.beginScalar()
        encoder.output.append(value ? "true" : "false")
    }

    mutating func encode(_ value: String) throws {
        encoder.beginScalar()
        encoder.output.string(value)
    }

    mutating func encode(_ value: Double) throws {
        encoder.beginScalar()
        try encoder.output.number(value, codingPath: [])
    }

    mutating func encode(_ value: Float) throws {
        encoder.beginScalar()
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
        encoder.beginScalar()
        encoder.output.integer(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encodeValue(value)
    }
}
