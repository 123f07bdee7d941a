import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The text of an S3 XML reply's elements, by name: S3's replies here are flat (`UploadId`, `ETag`, `Code`,
/// `Message`), so a name finds its element. Read with Foundation's `XMLParser` (libxml2), which resolves no
/// external entities.
struct S3XML {
    /// The document's outermost element (`Error` when a 200 carries an error, as a completion may).
    private(set) var root = ""
    private var texts: [String: [String]] = [:]

    init?(_ data: Data) {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse() else { return nil }
        (root, texts) = (reader.root, reader.texts)
    }

    /// The text of the first element named `name`.
    subscript(name: String) -> String? { texts[name]?.first }

    /// The text of every element named `name`, in document order.
    func all(_ name: String) -> [String] { texts[name] ?? [] }

    private final class Reader: NSObject, XMLParserDelegate {
        var root = ""
        var texts: [String: [String]] = [:]
        private var text = ""

        func parser(
            _ parser: XMLParser,
            didStartElement name: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root.isEmpty { root = name }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            texts[name, default: []].append(text)
            text = ""
        }
    }
}
