/// A coding key for any member name: a dictionary's keys, a column's name.
package struct MemberKey: CodingKey, Sendable {
    package var stringValue: String
    package var intValue: Int? { nil }

    package init(stringValue: String) {
        self.stringValue = stringValue
    }

    package init?(intValue: Int) {
        nil
    }
}
