import Foundation
import GRDB
import TransferdDomain

// The tables of the domain's values; each names the columns its queries filter, order or update by.

extension Session: RowRecord {
    package static let databaseTableName = "sessions"

    package enum Columns: String, ColumnExpression {
        case id, tenantID = "tenant_id", identifier, state, cancelOnInvalidate = "cancel_on_invalidate", invalidatedAt = "invalidated_at"
    }
}

extension TransferTask: RowRecord {
    package static let databaseTableName = "tasks"

    package enum Columns: String, ColumnExpression {
        case id, sessionID = "session_id", taskIdentifier = "task_identifier", state, backgroundTask = "background_task", sourceFileID =
            "source_file_id", sourceTaskID = "source_task_id"
    }
}

extension Event: RowRecord {
    package static let databaseTableName = "events"
}

extension Delivery: RowRecord {
    package static let databaseTableName = "deliveries"

    package enum Columns: String, ColumnExpression {
        case id, sessionID = "session_id", eventID = "event_id", status
    }
}

/// Read as records; attempts are written by one cached INSERT (`SQLiteDeliveryRepository.insertAttempt`).
extension DeliveryAttempt: FetchableRecord, TableRecord {
    package static let databaseTableName = "delivery_attempts"

    package enum Columns: String, ColumnExpression {
        case id, deliveryID = "delivery_id"
    }
}

extension WebhookSubscription: KeyedRecord {
    package static let databaseTableName = "webhooks"
}

extension StagedFile: RowRecord {
    package static let databaseTableName = "files"

    package enum Columns: String, ColumnExpression {
        case tenantID = "tenant_id", publicID = "public_id"
    }
}

extension BackgroundTask: RowRecord {
    package static let databaseTableName = "background_tasks"

    package enum Columns: String, ColumnExpression {
        case id, publicID = "public_id", sessionID = "session_id", state
    }
}

extension APIKey: KeyedRecord {
    package static let databaseTableName = "api_keys"
}

// States stored as their names, so that queries compare them as typed values.
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
