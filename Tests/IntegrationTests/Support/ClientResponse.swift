import Foundation

/// A whole HTTP response as the test client read it off the wire.
struct ClientResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    /// The first value of `name`, compared without regard to case.
    func header(_ name: String) -> String? {
        ResponseHead(status: status, headers: headers).header(name)
    }

    /// Every member of the list field `name`, over all its lines, lowercased.
    func list(_ name: String) -> [String] {
        ResponseHead(status: status, headers: headers).list(name)
    }

    var text: String {
        String(decoding: body, as: UTF8.self)
    }

    /// The body as a JSON object, or a thrown error that quotes it.
    func json() throws(ClientError) -> [String: Any] {
        try JSONText.object(from: body)
    }
}
