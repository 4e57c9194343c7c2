/// Typed reads of decoded JSON, so assertions stay one line.
extension Dictionary where Key == String, Value == Any {
    func object(_ key: String) -> [String: Any]? {
        self[key] as? [String: Any]
    }

    func objects(_ key: String) -> [[String: Any]] {
        self[key] as? [[String: Any]] ?? []
    }

    func string(_ key: String) -> String? {
        self[key] as? String
    }

    func int(_ key: String) -> Int? {
        self[key] as? Int
    }

    /// The screen ids of a session's root stack, bottom first.
    var rootPathIDs: [String] {
        (object("root")?.objects("path") ?? []).compactMap { $0.string("id") }
    }

    /// The screen names of a session's root stack, bottom first.
    var rootPathNames: [String] {
        (object("root")?.objects("path") ?? []).compactMap { $0.string("screen") }
    }
}
