import HTTPTypes
import Hummingbird

extension Response {
    /// 303 to `location`: where a dashboard form sends the browser after it acted, or a page sends a visitor who
    /// must sign in first.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}
