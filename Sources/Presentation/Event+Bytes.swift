#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
package import JSON

// An event's binary form, the one thing the event history and the stored session format
// must agree on: the history keeps its events packed this way, and the codec copies them
// to disk as they are. Changing it changes the stored format (SessionCodec.version).

extension ByteWriter {
    package mutating func write(_ source: ResultSource) {
        switch source {
        case .screen(let id):
            byte(0)
            string(id.rawValue)
        case .presentation(let id):
            byte(1)
            string(id.rawValue)
        }
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: byte(0)
        case .bool(let bool): byte(bool ? 2 : 1)
        case .number(let spelling):
            byte(3)
            string(spelling)
        case .string(let text):
            byte(4)
            string(text)
        case .array(let items):
            byte(5)
            unsigned(UInt64(items.count))
            for item in items { write(item) }
        case .object(let members):
            byte(6)
            unsigned(UInt64(members.count))
            for member in members {
                string(member.key)
                write(member.value)
            }
        }
    }

    package mutating func write(_ event: Event) {
        integer(event.revision)
        double(event.time.timeIntervalSinceReferenceDate)
        switch event.kind {
        case .pushed(let screen, let stack):
            byte(0)
            string(screen.rawValue)
            string(stack.rawValue)
        case .popped(let screens, let stack):
            byte(1)
            unsigned(UInt64(screens.count))
            for screen in screens { string(screen.rawValue) }
            string(stack.rawValue)
        case .replaced(let old, let new, let stack):
            byte(2)
            string(old.rawValue)
            string(new.rawValue)
            string(stack.rawValue)
        case .presented(let id, let style, let by, let stack, let screen):
            // 9, not 3: a 3 has no screen after its stack (recorded before presented events
            // named it), and is still read as such.
            byte(9)
            string(id.rawValue)
            string(style.rawValue)
            string(by.rawValue)
            optional(stack?.rawValue)
            optional(screen?.rawValue)
        case .dismissed(let id, let by):
            byte(4)
            string(id.rawValue)
            string(by.rawValue)
        case .cancelled(let id, let by):
            byte(5)
            string(id.rawValue)
            string(by.rawValue)
        case .result(let to, let from, let value):
            byte(6)
            string(to.rawValue)
            write(from)
            write(value)
        case .rootSet(let screen, let stack):
            byte(7)
            string(screen.rawValue)
            string(stack.rawValue)
        case .stateSet(let screen, let state, let transition):
            byte(8)
            string(screen.rawValue)
            write(state)
            string(transition.rawValue)
        }
    }

    /// A screen's state, as both an event and the stored tree keep it.
    package mutating func write(_ state: ScreenState) {
        string(state.name)
        text(state.paramsText)
    }
}

extension ByteReader {
    /// Deeper nesting of JSON values than any request could have made means corruption.
    package static let maxDepth = 1024

    package mutating func source() throws(ByteDecodingError) -> ResultSource {
        switch try byte() {
        case 0: .screen(try identifier(ScreenID.init(rawValue:)))
        case 1: .presentation(try identifier(PresentationID.init(rawValue:)))
        case let other: throw .invalid("result source \(other)")
        }
    }

    package mutating func json(depth: Int) throws(ByteDecodingError) -> JSONValue {
        guard depth < Self.maxDepth else { throw .invalid("a JSON value nests too deeply") }
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .number(try string())
        case 4: return .string(try string())
        case 5:
            var items: [JSONValue] = []
            for _ in 0..<(try count()) { items.append(try json(depth: depth + 1)) }
            return .array(items)
        case 6:
            var members: [JSONMember] = []
            for _ in 0..<(try count()) { members.append(JSONMember(try string(), try json(depth: depth + 1))) }
            return .object(members)
        case let other:
            throw .invalid("JSON tag \(other)")
        }
    }

    package mutating func event() throws(ByteDecodingError) -> Event {
        let revision = try integer()
        let time = Date(timeIntervalSinceReferenceDate: try double())
        let kind: EventKind
        switch try byte() {
        case 0:
            kind = .pushed(screen: try identifier(ScreenID.init(rawValue:)), stack: try identifier(StackID.init(rawValue:)))
        case 1:
            var screens: [ScreenID] = []
            for _ in 0..<(try count()) { screens.append(try identifier(ScreenID.init(rawValue:))) }
            kind = .popped(screens: screens, stack: try identifier(StackID.init(rawValue:)))
        case 2:
            kind = .replaced(
                old: try identifier(ScreenID.init(rawValue:)), new: try identifier(ScreenID.init(rawValue:)),
                stack: try identifier(StackID.init(rawValue:)))
        case let tag where tag == 3 || tag == 9:
            let id = try identifier(PresentationID.init(rawValue:))
            let style = try named(PresentationStyle.init(rawValue:))
            let by = try identifier(ScreenID.init(rawValue:))
            let stack = try optional().map { raw throws(ByteDecodingError) in try Self.parse(raw, StackID.init(rawValue:)) }
            // A 3 was recorded before presented events named the presented stack's screen.
            let screen =
                tag == 3 ? nil : try optional().map { raw throws(ByteDecodingError) in try Self.parse(raw, ScreenID.init(rawValue:)) }
            kind = .presented(id, style: style, by: by, stack: stack, screen: screen)
        case 4:
            kind = .dismissed(try identifier(PresentationID.init(rawValue:)), by: try identifier(ScreenID.init(rawValue:)))
        case 5:
            kind = .cancelled(try identifier(PresentationID.init(rawValue:)), by: try identifier(ScreenID.init(rawValue:)))
        case 6:
            kind = .result(to: try identifier(ScreenID.init(rawValue:)), from: try source(), value: try json(depth: 0))
        case 7:
            kind = .rootSet(screen: try identifier(ScreenID.init(rawValue:)), stack: try identifier(StackID.init(rawValue:)))
        case 8:
            kind = .stateSet(
                screen: try identifier(ScreenID.init(rawValue:)), state: try screenState(),
                transition: try named(StateTransition.init(rawValue:)))
        case let other:
            throw .invalid("event kind \(other)")
        }
        return Event(revision: revision, time: time, kind: kind)
    }

    /// A screen's state, its params checked by the parser and the whole by `ScreenState`'s
    /// own initializer, so that nothing read from disk reaches an answer unchecked.
    package mutating func screenState() throws(ByteDecodingError) -> ScreenState {
        let name = try string()
        let utf8 = try data()
        let params: JSONText
        do {
            params = try JSONText(parsing: utf8, maxDepth: Self.maxDepth, maxStringBytes: .max)
        } catch {
            throw .invalid("state params are not JSON: \(error)")
        }
        do {
            return try ScreenState(name: name, paramsText: params)
        } catch {
            throw .invalid("state \"\(name)\": \(error)")
        }
    }

    /// An id read as a string and checked by the id type's own initializer.
    package mutating func identifier<ID>(_ make: (String) -> ID?) throws(ByteDecodingError) -> ID {
        try Self.parse(try string(), make)
    }

    // Each id type by name, for SessionStorage: called from another module, the generic
    // `identifier` ran unspecialised, looking up its metadata on every call (a tenth of a
    // start-up's instructions, docs/performance.md, item 100). Here it is specialised.

    package mutating func screenID() throws(ByteDecodingError) -> ScreenID {
        try identifier(ScreenID.init(rawValue:))
    }

    package mutating func stackID() throws(ByteDecodingError) -> StackID {
        try identifier(StackID.init(rawValue:))
    }

    package mutating func presentationID() throws(ByteDecodingError) -> PresentationID {
        try identifier(PresentationID.init(rawValue:))
    }

    /// A raw-value enum (style, role, status) read as its name.
    package mutating func named<Value>(_ make: (String) -> Value?) throws(ByteDecodingError) -> Value {
        try Self.parse(try string(), make)
    }

    package static func parse<Value>(_ raw: String, _ make: (String) -> Value?) throws(ByteDecodingError) -> Value {
        guard let value = make(raw) else { throw .invalid("\"\(raw)\" is not a valid \(Value.self)") }
        return value
    }
}
