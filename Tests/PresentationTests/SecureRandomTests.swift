import Testing

@testable import Presentation

@Suite("Secure random bytes")
struct SecureRandomTests {
    /// Every byte of a buffer is drawn: over eight draws into a zeroed buffer, a byte left
    /// alone stays 0 in all of them, where a drawn one does so once in 2^64.
    private func expectEveryByteDrawn(count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        var touched = [Bool](repeating: false, count: count)
        for _ in 0..<8 {
            var bytes = [UInt8](repeating: 0, count: count)
            bytes.withUnsafeMutableBytes { fill($0) }
            for (index, byte) in bytes.enumerated() where byte != 0 { touched[index] = true }
        }
        #expect(touched.allSatisfy { $0 }, "\(count) bytes: untouched at \(touched.indices.filter { !touched[$0] })")
    }

    @Test("Fills every byte, in one call of the system's or in 256-byte parts past that", arguments: [
        1, 16, 32, 48, 255, 256, 257, 600,
    ])
    func fillsEveryByte(count: Int) {
        expectEveryByteDrawn(count: count) { SecureRandom.fill($0) }
    }

    @Test("The fallback to the standard library's generator fills partial words too", arguments: [1, 7, 8, 9, 20])
    func fallbackFillsEveryByte(count: Int) {
        expectEveryByteDrawn(count: count) { SecureRandom.fillWithGenerator($0) }
    }

    @Test("An empty buffer is left alone")
    func emptyBuffer() {
        var bytes: [UInt8] = []
        bytes.withUnsafeMutableBytes { SecureRandom.fill($0) }
        #expect(bytes.isEmpty)
    }

    @Test("Two draws differ")
    func drawsDiffer() {
        func draw() -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 32)
            bytes.withUnsafeMutableBytes { SecureRandom.fill($0) }
            return bytes
        }
        let first = draw()
        #expect(first != draw())
        #expect(first != [UInt8](repeating: 0, count: 32))
    }
}
