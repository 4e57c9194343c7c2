/// Why bytes are not what `ByteWriter` wrote: cut short, or holding a value no writer writes.
package enum ByteDecodingError: Error, CustomStringConvertible {
    case truncated
    case invalid(String)
    /// The bytes are not those their checksum was made of: damaged since they were written.
    case checksumMismatch(String)

    package var description: String {
        switch self {
        case .truncated: "the bytes end too early"
        case .invalid(let reason): "the bytes are not valid: \(reason)"
        case .checksumMismatch(let details): "the bytes do not match their checksum: \(details)"
        }
    }
}
