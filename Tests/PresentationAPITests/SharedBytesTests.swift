import MicroHTTP
import Testing

@Suite("Shared bytes")
struct SharedBytesTests {
    static func run(_ text: String, headroom: Int = 0, tailroom: Int = 0) -> SharedBytes {
        Array(text.utf8).withUnsafeBufferPointer { SharedBytes(copying: $0, headroom: headroom, tailroom: tailroom) }
    }

    static func text(_ run: SharedBytes) -> String {
        String(decoding: run.bytes, as: UTF8.self)
    }

    @Test("An edit moves the bytes after it and leaves those before it at their indices, within its room or past it")
    func replaceSubrange() {
        let run = Self.run("[1,2]", headroom: 4, tailroom: 4)
        #expect(run.startIndex == 4 && run.endIndex == 9)
        // `]` is at index 8: insert before it, within the room.
        Array(",3".utf8).withUnsafeBufferPointer { run.replaceSubrange(8..<8, with: $0) }
        #expect(Self.text(run) == "[1,2,3]" && run.startIndex == 4 && run.endIndex == 11)
        // Past the room: the run moves to a larger block, at the same indices.
        Array(",4,5,6,7,8".utf8).withUnsafeBufferPointer { run.replaceSubrange(10..<10, with: $0) }
        #expect(Self.text(run) == "[1,2,3,4,5,6,7,8]" && run.startIndex == 4)
        // Removing: `,2` is at 6..<8.
        run.replaceSubrange(6..<8, with: UnsafeBufferPointer(start: nil, count: 0))
        #expect(Self.text(run) == "[1,3,4,5,6,7,8]" && run.count == 15)
    }

    @Test("A new prefix ends where the old one did, in the room before it; one longer than that room changes nothing")
    func replacePrefix() {
        let run = Self.run("ab|tree", headroom: 3)
        let tree = 3 + 3
        #expect(Array("abcde|".utf8).withUnsafeBufferPointer { run.replacePrefix(upTo: tree, with: $0) })
        #expect(Self.text(run) == "abcde|tree" && run.startIndex == 0 && run.endIndex == 10)
        #expect(Array("x|".utf8).withUnsafeBufferPointer { run.replacePrefix(upTo: tree, with: $0) })
        #expect(Self.text(run) == "x|tree" && run.startIndex == 4)
        #expect(!Array("1234567|".utf8).withUnsafeBufferPointer { run.replacePrefix(upTo: tree, with: $0) })
        #expect(Self.text(run) == "x|tree")
    }

    @Test("A copy has the run at the same indices, with the same room, and is a block of its own")
    func copying() {
        let run = Self.run("{}", headroom: 8, tailroom: 2)
        let copy = SharedBytes(copying: run)
        #expect(copy.startIndex == 8 && copy.endIndex == 10 && Self.text(copy) == "{}")
        Array("[]".utf8).withUnsafeBufferPointer { copy.replaceSubrange(8..<10, with: $0) }
        #expect(Self.text(copy) == "[]" && Self.text(run) == "{}")
    }
}
