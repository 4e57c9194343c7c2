/// A response's status line and header fields, before (or without) its body.
struct ResponseHead {
    let status: Int
    let headers: [(name: String, value: String)]

    /// The first value of `name`, compared without regard to case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var isChunked: Bool {
        header("Transfer-Encoding")?.lowercased().contains("chunked") == true
    }

    var contentLength: Int? {
        header("Content-Length").flatMap { Int($0) }
    }
}
