import Foundation

/// A response's status line and header fields, before (or without) its body.
struct ResponseHead {
    let status: Int
    let headers: [(name: String, value: String)]

    /// The first value of `name`, compared without regard to case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every member of the list field `name`, over all its lines (RFC 9110 5.3), lowercased.
    func list(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    var isChunked: Bool {
        header("Transfer-Encoding")?.lowercased().contains("chunked") == true
    }

    var contentLength: Int? {
        header("Content-Length").flatMap { Int($0) }
    }
}
