/// Checks of task fields that both creating and changing a task accept.
enum TaskFieldValidation {
    static func validatePriority(_ priority: Double) throws(Problem) {
        guard (0...1).contains(priority) else { throw .invalidField("priority", "must be a number from 0.0 to 1.0") }
    }

    static func validateDescription(_ description: String) throws(Problem) {
        guard description.utf8.count <= 1024 else { throw .invalidField("taskDescription", "must be at most 1024 bytes") }
    }

    static func validateMaxBytesPerSecond(_ rate: Int64) throws(Problem) {
        guard rate >= 1024 else {
            throw .invalidField("maxBytesPerSecond", "must be at least 1024 (bytes per second), or null for no limit")
        }
    }
}
