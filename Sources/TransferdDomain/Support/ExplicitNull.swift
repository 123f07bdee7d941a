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
