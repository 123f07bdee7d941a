import Hummingbird

/// One page of a list: the items, and the cursor for the next page (`null` on the last page).
struct Page<Item: Encodable & Sendable>: ResponseEncodable, Sendable {
    var items: [Item]
    var nextCursor: String?
}
