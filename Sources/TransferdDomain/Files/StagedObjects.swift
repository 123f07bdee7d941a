/// Where a staged file's bytes are in the content store: the object each append made, in order, and once the file is
/// complete, the one object that holds all of it (the only append's, or one made of them all).
package struct StagedObjects: Codable, Sendable, Equatable {
    /// An object of the content store, and how many bytes it holds.
    package struct Object: Codable, Sendable, Equatable {
        package let key: String
        package let size: Int64
        /// Its `ETag`, quotes included.
        package let etag: String

        package init(key: String, size: Int64, etag: String) {
            (self.key, self.size, self.etag) = (key, size, etag)
        }

        /// The object as the stores name it; its key was made by `ContentStoreSettings`.
        package var location: ObjectLocation { ObjectLocation(storage: ObjectLocation.contentStore, key: ObjectKey(madeFrom: key)) }
    }

    /// One an append, in order: together they hold the bytes up to the file's offset.
    package var appends: [Object]
    /// The whole file, once complete.
    package var whole: Object?

    package init(appends: [Object] = [], whole: Object? = nil) {
        (self.appends, self.whole) = (appends, whole)
    }

    /// Every object, to be removed with the file.
    package var all: [Object] { appends + (whole.map { whole in appends.contains(whole) ? [] : [whole] } ?? []) }
}
