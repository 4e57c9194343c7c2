import Foundation
import JSON
@testable import MicroHTTP
import Presentation
@testable import PresentationAPI
import Synchronization
import SessionChecks
import Testing

/// Reads what an event stream has queued, as libmicrohttpd's content reader would.
struct StreamTap {
    let stream: HTTPStream
    let includesSession: Bool
    /// The revision the stream has sent through, as its subscriber should have.
    var through: Int

    func drain() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
            guard case .bytes(let count) = read else { return out }
            out += buffer[..<count]
        }
    }
}
