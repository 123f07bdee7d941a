import Hummingbird
import TransferdDomain

/// The body of `POST …/tasks`: one task, or `{"tasks": [ … ]}` with up to `maximumBatch` of them. A batch is
/// created whole or not at all; a bad item is refused (422) with its index.
enum CreateTasksBody: Decodable {
    static let maximumBatch = 1000

    case one(CreateTaskRequest)
    case batch([CreateTaskRequest])

    private enum CodingKeys: String, CodingKey {
        case tasks
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.tasks) else {
            self = .one(try CreateTaskRequest(from: decoder))
            return
        }
        var items = try container.nestedUnkeyedContainer(forKey: .tasks)
        guard let count = items.count, (1...Self.maximumBatch).contains(count) else {
            throw DomainError.invalidField("tasks", requirement: "must hold 1 to \(Self.maximumBatch) tasks")
        }
        var tasks: [CreateTaskRequest] = []
        tasks.reserveCapacity(count)
        while !items.isAtEnd {
            do {
                tasks.append(try items.decode(CreateTaskRequest.self))
            } catch let error as DecodingError {
                throw JSONRequestDecoder.refusal(for: error, under: 2).item(tasks.count, of: "tasks")
            }
        }
        self = .batch(tasks)
    }

    /// The task bodies, in order.
    var items: [CreateTaskRequest] {
        switch self {
        case .one(let item): [item]
        case .batch(let items): items
        }
    }

    /// Where a batch's items are (`tasks`), so that a refusal names the item; nil for one task.
    var itemField: String? {
        if case .batch = self { "tasks" } else { nil }
    }
}

/// The answer to a batch: the created tasks, in the order they were asked for.
struct TaskBatch: ResponseEncodable, Sendable {
    var tasks: [TaskRepresentation]
}
