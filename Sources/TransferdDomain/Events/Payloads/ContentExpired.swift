/// `task.content_expired`: a download's file, or an upload's kept reply body (absent then), passed its retention
/// period and was removed.
package struct ContentExpired: Codable, Sendable, Equatable {
    package var file: StoredFile?

    package init(file: StoredFile?) {
        self.file = file
    }
}
