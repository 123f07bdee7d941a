/// An unkeyed container: an array's elements, written as they are encoded.
struct ArrayContainer: UnkeyedEncodingContainer, ValueSlot {
    let encoder: ByteEncoder
    let frame: Int

    var count: Int { encoder.count(of: frame) }

    func begin() {
        encoder.beginElement(of: frame)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        begin()
        return KeyedEncodingContainer(ObjectContainer<NestedKey>(encoder: encoder, frame: encoder.open(object: true)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        begin()
        return ArrayContainer(encoder: encoder, frame: encoder.open(object: false))
    }

    mutating func superEncoder() -> any Encoder {
        preconditionFailure("StreamingJSONEncoder does not support superEncoder()")
    }
}
