import Foundation

/// The `Encoder` behind `StreamingJSONEncoder`: one per encoding, writing into one output.
///
/// Containers write as they are used. The objects and arrays still open are a stack; a container knows its place
/// in it, and closes what is deeper (the nested containers of its previous member) before it writes a member. When
/// a value's `encode(to:)` returns, what it opened is closed.
final class ByteEncoder: Encoder {
    /// An object or array still open.
    struct Frame {
        var isObject: Bool
        var count = 0
    }

    var output: JSONOutput
    private let dateFormat: StreamingJSONEncoder.DateFormat
    private var frames: [Frame] = []
    /// Where in `frames` the value being encoded began, and whether it has written anything yet.
    private var valueStart = 0
    private var valueBegun = false

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(capacity: Int, dateFormat: StreamingJSONEncoder.DateFormat) {
        output = JSONOutput(capacity: capacity)
        self.dateFormat = dateFormat
    }

    /// Writes one whole value: the scalar types JSON has its own forms for directly, anything else through its
    /// own `encode(to:)`. A value that encodes nothing is written as `{}`.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if let date = value as? Date {
            switch dateFormat {
            case .iso8601: output.date(date)
            case .millisecondsSince1970: try output.number(date.timeIntervalSince1970 * 1000, codingPath: [])
            }
        } else if let url = value as? URL {
            output.string(url.absoluteString)
        } else if let data = value as? Data {
            output.string(data.base64EncodedString())
        } else {
            let (start, begun) = (valueStart, valueBegun)
            (valueStart, valueBegun) = (frames.count, false)
            if let dictionary = value as? any StringKeyedDictionary {
                try dictionary.encodeSorted(to: self)
            } else {
                try value.encode(to: self)
            }
            if !valueBegun { output.append("{}") }
            close(downTo: valueStart)
            (valueStart, valueBegun) = (start, begun)
        }
        valueBegun = true
    }

    /// Marks the value being encoded as written; its scalar follows.
    func beginScalar() {
        valueBegun = true
    }

    // MARK: containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A second request for the value's object (a type that encodes its members in two steps) continues it.
        if valueBegun, frames.count > valueStart, frames[valueStart].isObject {
            return KeyedEncodingContainer(ObjectContainer(encoder: self, frame: valueStart))
        }
        valueBegun = true
        return KeyedEncodingContainer(ObjectContainer(encoder: self, frame: open(object: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        valueBegun = true
        return ArrayContainer(encoder: self, frame: open(object: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ScalarContainer(encoder: self)
    }

    /// Opens an object or array nested at the current place; returns its place in the stack.
    func open(object: Bool) -> Int {
        output.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append(Frame(isObject: object))
        return frames.count - 1
    }

    /// Starts the next member of the object at `frame`: closes what its previous member left open, then writes
    /// the separator and the key.
    func beginMember(of frame: Int, key: String) {
        beginElement(of: frame)
        output.string(key)
        output.append(UInt8(ascii: ":"))
    }

    /// Starts the next element of the array (or member of the object) at `frame`.
    func beginElement(of frame: Int) {
        close(downTo: frame + 1)
        precondition(frame < frames.count, "a JSON container was used after its value was encoded")
        if frames[frame].count > 0 { output.append(UInt8(ascii: ",")) }
        frames[frame].count += 1
    }

    func count(of frame: Int) -> Int {
        frame < frames.count ? frames[frame].count : 0
    }

    private func close(downTo depth: Int) {
        while frames.count > depth {
            output.append(frames.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }
}
