/// An event as a tenant-wide reader sees it: with its session's identifier, and the cursor after it.
package struct TenantEvent: Sendable {
    package var event: Event
    package var session: String
    package var cursor: TenantEventCursor

    package init(event: Event, session: String, cursor: TenantEventCursor) {
        self.event = event
        self.session = session
        self.cursor = cursor
    }
}
