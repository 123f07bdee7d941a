extension Array where Element == Int64 {
    /// The ids as a JSON array, for SQL that reads them with `json_each(?)` (one argument, whatever the count).
    var sqliteJSONArray: String {
        "[" + map(String.init).joined(separator: ",") + "]"
    }
}
