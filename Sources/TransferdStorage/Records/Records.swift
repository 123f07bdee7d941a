import GRDB
import TransferdDomain

// The tables of the domain's values.

extension Session {
    static let table = "sessions"
}

extension TransferTask {
    static let table = "tasks"
}

extension Event {
    static let table = "events"
}

extension Delivery {
    static let table = "deliveries"
}

extension DeliveryAttempt {
    static let table = "delivery_attempts"
}

extension WebhookSubscription {
    static let table = "webhooks"
}

extension StagedFile {
    static let table = "files"
}

extension BackgroundTask {
    static let table = "background_tasks"
}

extension APIKey {
    static let table = "api_keys"
}

// States stored as their names, bound as arguments as they are.
extension TaskState: DatabaseValueConvertible {}
extension Session.State: DatabaseValueConvertible {}
extension Delivery.Status: DatabaseValueConvertible {}
extension BackgroundTask.State: DatabaseValueConvertible {}
extension EventType: DatabaseValueConvertible {}
extension WebhookSubscription.State: DatabaseValueConvertible {}

extension WebhookSecret: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue {
        value.databaseValue
    }

    package static func fromDatabaseValue(_ dbValue: DatabaseValue) -> WebhookSecret? {
        String.fromDatabaseValue(dbValue).flatMap(WebhookSecret.init)
    }
}
