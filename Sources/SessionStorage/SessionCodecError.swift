/// Why stored bytes are not a session: cut short, or holding a value no encoder writes.
enum SessionCodecError: Error, CustomStringConvertible {
    case truncated
    case invalid(String)

    var description: String {
        switch self {
        case .truncated: "the stored session ends too early"
        case .invalid(let reason): "the stored session is not valid: \(reason)"
        }
    }
}
