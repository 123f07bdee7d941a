import TransferdDomain

/// The body of `PATCH …/tasks/{n}`: the fields given change; `maxBytesPerSecond: null` removes the limit.
struct UpdateTaskRequest: Decodable {
    var priority: Double?
    var taskDescription: String?
    var maxBytesPerSecond: Int64?
    var changesMaxBytesPerSecond: Bool

    enum CodingKeys: String, CodingKey {
        case priority, taskDescription, maxBytesPerSecond
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        priority = try container.decodeIfPresent(Double.self, forKey: .priority)
        taskDescription = try container.decodeIfPresent(String.self, forKey: .taskDescription)
        maxBytesPerSecond = try container.decodeIfPresent(Int64.self, forKey: .maxBytesPerSecond)
        changesMaxBytesPerSecond = container.contains(.maxBytesPerSecond)
    }

    func validate() throws(DomainError) -> TaskChange {
        if let priority { try TaskFieldValidation.validatePriority(priority) }
        if let taskDescription { try TaskFieldValidation.validateDescription(taskDescription) }
        if let maxBytesPerSecond { try TaskFieldValidation.validateMaxBytesPerSecond(maxBytesPerSecond) }
        return TaskChange(
            priority: priority,
            taskDescription: taskDescription,
            maxBytesPerSecond: changesMaxBytesPerSecond ? .some(maxBytesPerSecond) : nil
        )
    }
}
