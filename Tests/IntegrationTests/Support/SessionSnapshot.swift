/// What a failed request must leave alone: the revision and the whole tree, as canonical JSON.
struct SessionSnapshot: Equatable, CustomStringConvertible {
    let revision: Int
    let tree: String

    init(_ session: [String: Any]) {
        revision = session["revision"] as? Int ?? -1
        tree = JSONText.canonical(["root": session["root"] ?? Wire.null, "top": session["top"] ?? Wire.null])
    }

    var description: String {
        "revision \(revision): \(tree)"
    }
}
