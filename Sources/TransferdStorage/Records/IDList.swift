/// Row ids passed to SQL as one JSON array argument, read with `json_each(?)`, whatever their count.
struct IDList {
    let json: String

    init(_ ids: [Int64]) {
        json = "[" + ids.map(String.init).joined(separator: ",") + "]"
    }
}
