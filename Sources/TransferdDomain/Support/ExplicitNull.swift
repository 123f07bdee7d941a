/// An optional field that is encoded as `null` when it has no value, instead of being left out, so that every
/// representation of a resource has the same set of fields.
@propertyWrapper
package struct ExplicitNull<Value: Encodable & Sendable>: Encodable, Sendable {
    package var wrappedValue: Value?

    package init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension KeyedEncodingContainer {
    /// The field's value, or `null`, written straight into the keyed container: the synthesized conformances call
    /// this rather than encoding the wrapper as a value of its own (a nested encoder per field, a large part of
    /// encoding a task).
    package mutating func encode<Value>(_ field: ExplicitNull<Value>, forKey key: Key) throws {
        if let value = field.wrappedValue {
            try encode(value, forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }
}
