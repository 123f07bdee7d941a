import Hummingbird

/// The dashboard's stylesheet and script, embedded in the binary and served without sign-in.
enum DashboardAssets {
    private static let files: [String: (contentType: String, bytes: [UInt8])] = [
        "dashboard.css": ("text/css; charset=utf-8", PackageResources.dashboard_css),
        "dashboard.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_js),
    ]

    /// The assets' route, relative to `/ui/assets`.
    static var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(":name") { _, context in
            guard let name = context.parameters.get("name"), let file = files[name] else {
                throw Problem(.notFound, detail: "The dashboard has no such asset.")
            }
            return Response(
                status: .ok,
                headers: [.contentType: file.contentType, .cacheControl: "public, max-age=300"],
                body: .init(byteBuffer: ByteBuffer(bytes: file.bytes))
            )
        }
        return routes
    }
}
