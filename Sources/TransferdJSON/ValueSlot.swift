/// Where the next value goes: an array's next element (`ArrayContainer`), or the one value being encoded
/// (`ScalarContainer`). Once its place is begun, a value is written alike in both.
protocol ValueSlot {
    var encoder: ByteEncoder { get }

    /// Makes the place ready for the next value: a separator, and closing what the previous value left open.
    func begin()
}

extension ValueSlot {
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {
        begin()
        encoder.output.append("null")
    }

    mutating func encode(_ value: Bool) throws {
        begin()
        encoder.output.append(value ? "true" : "false")
    }

    mutating func encode(_ value: String) throws {
        begin()
        encoder.output.string(value)
    }

    mutating func encode(_ value: Double) throws {
        begin()
        try encoder.output.number(value, codingPath: [])
    }

    mutating func encode(_ value: Float) throws {
        begin()
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
        begin()
        encoder.output.integer(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        begin()
        try encoder.encodeValue(value)
    }
}
