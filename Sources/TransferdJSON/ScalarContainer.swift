/// A single-value container: the value being encoded is one scalar, or one other value in its place.
struct ScalarContainer: SingleValueEncodingContainer, ValueSlot {
    let encoder: ByteEncoder

    func begin() {
        encoder.beginScalar()
    }
}
