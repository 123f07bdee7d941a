/// One page of a list; `nextCursor` continues it.
struct Page<Item: Decodable & Sendable>: Decodable, Sendable {
    var items: [Item]
    var nextCursor: String?
}
