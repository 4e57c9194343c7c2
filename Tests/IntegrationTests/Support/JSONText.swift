import Foundation

/// JSON in and out of tests through Foundation, plus a canonical text for exact comparisons.
enum JSONText {
    /// Parses a body that must be a JSON object.
    static func object(from bytes: [UInt8]) throws(ClientError) -> [String: Any] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
            let object = parsed as? [String: Any]
        else { throw .notJSONObject(text) }
        return object
    }

    /// Serializes a request body built from dictionary and array literals.
    static func bytes(_ value: Any) -> [UInt8] {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { preconditionFailure("not serializable as JSON: \(value)") }
        return Array(data)
    }

    /// Sorted-key text of any JSON value (nil reads as `null`): two values are equal as JSON
    /// exactly when their canonical texts are, and a failing comparison prints both.
    static func canonical(_ value: Any?) -> String {
        let value = value ?? NSNull()
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { return "<not JSON: \(value)>" }
        return String(decoding: data, as: UTF8.self)
    }
}
