import GRDB
import TransferdDomain

// States stored as their names, bound as arguments as they are.
extension TaskState: DatabaseValueConvertible {}
extension Session.State: DatabaseValueConvertible {}
extension Delivery.Status: DatabaseValueConvertible {}
extension BackgroundTask.State: DatabaseValueConvertible {}
extension EventType: DatabaseValueConvertible {}
extension WebhookSubscription.State: DatabaseValueConvertible {}
