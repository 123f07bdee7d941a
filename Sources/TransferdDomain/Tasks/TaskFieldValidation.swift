/// Checks of task fields that both creating and changing a task accept.
package enum TaskFieldValidation {
    package static func validatePriority(_ priority: Double) throws(DomainError) {
        guard (0...1).contains(priority) else { throw .invalidField("priority", requirement: "must be a number from 0.0 to 1.0") }
    }

    package static func validateDescription(_ description: String) throws(DomainError) {
        guard description.utf8.count <= 1024 else { throw .invalidField("taskDescription", requirement: "must be at most 1024 bytes") }
    }

    package static func validateMaxBytesPerSecond(_ rate: Int64) throws(DomainError) {
        guard rate >= 1024 else {
            throw .invalidField("maxBytesPerSecond", requirement: "must be at least 1024 (bytes per second), or null for no limit")
        }
    }
}
