/// Serves the files under one directory, and nothing outside it.
///
/// (Placeholder until the static file issue lands: serves nothing.)
public struct StaticFiles: Sendable {
    public let root: String

    public init(root: String) throws(StaticFilesError) {
        self.root = root
    }

    /// The file's response, or nil when no file of that path is here (the caller answers 404).
    public func response(for request: HTTPRequest) -> HTTPResponse? {
        nil
    }
}

/// Why a directory cannot be served.
public enum StaticFilesError: Error, Hashable, Sendable {
    case notADirectory(String)
}
