/// The `Content-Type` of a served file, chosen by its extension.
struct MediaType: Hashable, Sendable {
    let value: String

    static let html = MediaType(value: "text/html; charset=utf-8")
    static let javaScript = MediaType(value: "text/javascript; charset=utf-8")
    static let css = MediaType(value: "text/css; charset=utf-8")
    static let json = MediaType(value: "application/json")
    static let svg = MediaType(value: "image/svg+xml")
    static let png = MediaType(value: "image/png")
    static let icon = MediaType(value: "image/x-icon")
    static let yaml = MediaType(value: "application/yaml")
    static let text = MediaType(value: "text/plain; charset=utf-8")
    /// Anything else: with `nosniff`, a browser will neither run nor render it.
    static let bytes = MediaType(value: "application/octet-stream")

    private init(value: String) {
        self.value = value
    }

    init(path: String) {
        let name = path.split(separator: "/").last ?? Substring(path)
        let fileExtension = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() }
        switch fileExtension {
        case "html", "htm": self = .html
        case "js", "mjs": self = .javaScript
        case "css": self = .css
        case "json", "map": self = .json
        case "svg": self = .svg
        case "png": self = .png
        case "ico": self = .icon
        case "yaml", "yml": self = .yaml
        case "txt", "md": self = .text
        default: self = .bytes
        }
    }
}
