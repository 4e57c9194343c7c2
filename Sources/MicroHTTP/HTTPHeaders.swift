#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Header fields in the order they came or will go, looked up without regard to case.
///
/// A request's headers are copied out of libmicrohttpd in one go into one block of bytes,
/// each field as the lengths of its name and value, then both ended by a NUL as the C
/// strings they were, and a `String` is made only for a field somebody reads: making one
/// for every name and value of every request, and freeing them, cost more than routing it
/// (docs/performance.md, item 46). Fields added as strings, as a response's are, are kept
/// as strings, which is cheaper to build for the three or four a response has. Names and
/// values hold no NUL: HTTP allows none, and libmicrohttpd hands over and takes C strings.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)
    /// A field as C strings, valid only while their owner (libmicrohttpd's request) lives,
    /// measured once: the block is sized from the lengths, then filled with them.
    struct CStringField {
        let name: UnsafePointer<CChar>
        let nameLength: Int
        let value: UnsafePointer<CChar>?
        let valueLength: Int

        init(name: UnsafePointer<CChar>, value: UnsafePointer<CChar>?) {
            self.name = name
            nameLength = strlen(name)
            self.value = value
            valueLength = value.map { strlen($0) } ?? 0
        }
    }

    /// For each field read from C strings, its name's and its value's length (two `UInt32`,
    /// so that a lookup skips a field of another length without reading it), then
    /// `name\0value\0`; these fields come before `added`.
    private var block: HeaderBlock?
    /// The fields added as strings.
    private var added: [Field] = []

    public init() {}

    public init(fields: [Field]) {
        added = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        added = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Fields given as C strings, such as libmicrohttpd's, in order; no value is an empty one.
    /// Measured first, then copied into a block allocated once.
    init(cStrings fields: UnsafeBufferPointer<CStringField>) {
        var total = 0
        for field in fields { total += 10 + field.nameLength + field.valueLength }
        // An HTTP/1.0 request may carry no header at all; an empty array may have no storage.
        guard total > 0 else { return }
        block = HeaderBlock(count: total) { base in
            var offset = 0
            for field in fields {
                UnsafeMutableRawPointer(base + offset).storeBytes(of: UInt32(truncatingIfNeeded: field.nameLength), as: UInt32.self)
                UnsafeMutableRawPointer(base + offset + 4).storeBytes(
                    of: UInt32(truncatingIfNeeded: field.valueLength), as: UInt32.self)
                offset += 8
                field.name.withMemoryRebound(to: UInt8.self, capacity: field.nameLength) {
                    (base + offset).initialize(from: $0, count: field.nameLength)
                }
                offset += field.nameLength
                base[offset] = 0
                offset += 1
                if let value = field.value {
                    value.withMemoryRebound(to: UInt8.self, capacity: field.valueLength) {
                        (base + offset).initialize(from: $0, count: field.valueLength)
                    }
                }
                offset += field.valueLength
                base[offset] = 0
                offset += 1
            }
        }
    }

    /// Every field, as strings.
    public var fields: [Field] {
        guard block != nil else { return added }
        var fields: [Field] = []
        forEachBlockField { name, value in
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return true
        }
        return fields + added
    }

    public var isEmpty: Bool { block == nil && added.isEmpty }

    /// The first value of the field `name` (case-insensitive), as HTTP compares names.
    public subscript(name: String) -> String? {
        if let value = withBlockValue(name, { $0.map { String(decoding: $0, as: UTF8.self) } }) { return value }
        return added.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Calls `body` with the bytes of the field `name`, or nil when there is none, and whether
    /// it came more than once (`body` then has the first): for a field that must come once
    /// (RFC 9110 5.3), such as a token, which a request may not name twice for two readers to
    /// read differently. The bytes are valid only during the call and are read without a
    /// copy. Not generic, so that callers in other modules need no metadata made for it at
    /// every call.
    public func withValue(_ name: String, _ body: (_ value: UnsafeBufferPointer<UInt8>?, _ repeated: Bool) -> Void) {
        var wanted = name
        var inBlock = false
        wanted.withUTF8 { wanted in
            block?.withBytes { block in
                var first: UnsafeBufferPointer<UInt8>?
                var repeated = false
                // The whole block is walked: a second line of the field may come anywhere.
                Self.forEachField(in: block) { fieldName, value in
                    guard Self.sameIgnoringCase(fieldName, wanted) else { return true }
                    guard first == nil else {
                        repeated = true
                        return false
                    }
                    first = value
                    return true
                }
                guard let first else { return }
                inBlock = true
                body(first, repeated || added.contains { $0.name.caseInsensitiveEquals(name) })
            }
        }
        guard !inBlock else { return }
        guard let index = added.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else { return body(nil, false) }
        let repeated = added[(index + 1)...].contains { $0.name.caseInsensitiveEquals(name) }
        var value = added[index].value
        value.withUTF8 { body($0, repeated) }
    }

    /// Every value of the field `name`, in order: for list fields that may come more than once.
    public func values(_ name: String) -> [String] {
        var values: [String] = []
        var name = name
        name.withUTF8 { wanted in
            forEachBlockField { fieldName, value in
                if Self.sameIgnoringCase(fieldName, wanted) { values.append(String(decoding: value, as: UTF8.self)) }
                return true
            }
        }
        guard !added.isEmpty else { return values }
        return values + added.compactMap { $0.name.caseInsensitiveEquals(name) ? $0.value : nil }
    }

    /// The list field `name` as one value: its field lines joined by commas, as RFC 9110 5.3
    /// combines them (a proxy may split a list over several lines); nil when there is none.
    public func list(_ name: String) -> String? {
        // Joined as found, with no array: a conditional write (If-Match) asks on every request.
        var list: String?
        func append(_ text: String) { list = list.map { $0 + ", " + text } ?? text }
        var wanted = name
        wanted.withUTF8 { wanted in
            forEachBlockField { fieldName, value in
                if Self.sameIgnoringCase(fieldName, wanted) { append(String(decoding: value, as: UTF8.self)) }
                return true
            }
        }
        for field in added where field.name.caseInsensitiveEquals(name) { append(field.value) }
        return list
    }

    /// The list fields `first` and `second`, as `list` reads each, in one walk of the fields:
    /// a read asks for both `If-Match` and `If-None-Match`.
    public func lists(_ first: String, _ second: String) -> (String?, String?) {
        var lists: (String?, String?)
        func append(_ text: String, to list: inout String?) { list = list.map { $0 + ", " + text } ?? text }
        var firstName = first, secondName = second
        firstName.withUTF8 { firstName in
            secondName.withUTF8 { secondName in
                forEachBlockField { fieldName, value in
                    if Self.sameIgnoringCase(fieldName, firstName) {
                        append(String(decoding: value, as: UTF8.self), to: &lists.0)
                    } else if Self.sameIgnoringCase(fieldName, secondName) {
                        append(String(decoding: value, as: UTF8.self), to: &lists.1)
                    }
                    return true
                }
            }
        }
        for field in added {
            if field.name.caseInsensitiveEquals(first) {
                append(field.value, to: &lists.0)
            } else if field.name.caseInsensitiveEquals(second) {
                append(field.value, to: &lists.1)
            }
        }
        return lists
    }

    /// Adds a field, keeping any earlier one of the same name.
    public mutating func add(_ name: String, _ value: String) {
        added.append((name: name, value: value))
    }

    /// Adds each of `defaults`' fields that this has none of. `Vary` is a list each part of a
    /// server adds its own reasons to (RFC 9110 12.5.5): its members are added as a line of
    /// their own (which means the same as one line joining both), those it does not name yet.
    /// A CORS preflight's answer named `Origin` itself, and got it a second time this way.
    public mutating func addAbsent(_ defaults: HTTPHeaders) {
        for field in defaults {
            if field.name.caseInsensitiveEquals("Vary") {
                let named = values(field.name).flatMap { $0.split(separator: ",") }.map { String($0.trimmingSpaces) }
                let missing = field.value.split(separator: ",").map { String($0.trimmingSpaces) }.filter { member in
                    !named.contains { $0.caseInsensitiveEquals(member) }
                }
                if !missing.isEmpty { add(field.name, missing.joined(separator: ", ")) }
            } else if self[field.name] == nil {
                add(field.name, field.value)
            }
        }
    }

    /// Replaces every field named `name` with this one.
    public mutating func set(_ name: String, _ value: String) {
        if block != nil {
            added = fields.filter { !$0.name.caseInsensitiveEquals(name) }
            block = nil
        } else {
            // In place: a response's fields are all strings, and copying them all to drop
            // none cost about 1,900 instructions a call (docs/performance.md, item 93).
            added.removeAll { $0.name.caseInsensitiveEquals(name) }
        }
        added.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Calls `body` with each field's name and value as C strings, valid only during the call.
    func withEachCString(_ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Void) {
        forEachBlockField { name, value in
            // The block holds each name and value with its terminator right after it.
            name.baseAddress!.withMemoryRebound(to: CChar.self, capacity: name.count + 1) { name in
                value.baseAddress!.withMemoryRebound(to: CChar.self, capacity: value.count + 1) { value in body(name, value) }
            }
            return true
        }
        for field in added {
            // withCString lends a native string's own bytes; passing the String itself would
            // have Swift build a temporary C array for each header.
            field.name.withCString { name in field.value.withCString { value in body(name, value) } }
        }
    }

    /// `body` of the first value in the block of the field `name`, or nil when the block has none.
    private func withBlockValue<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R?) rethrows -> R? {
        guard let block else { return nil }
        var found: UnsafeBufferPointer<UInt8>?
        var name = name
        return try name.withUTF8 { wanted in
            try block.withBytes { block in
                Self.forEachField(in: block) { fieldName, value in
                    guard Self.sameIgnoringCase(fieldName, wanted) else { return true }
                    found = value
                    return false
                }
                return found == nil ? nil : try body(found)
            }
        }
    }

    private func forEachBlockField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        block?.withBytes { Self.forEachField(in: $0, body) }
    }

    /// Calls `body` with each field's name and value, without their terminators, until it returns false.
    private static func forEachField(
        in block: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        guard let base = block.baseAddress else { return }
        let end = base + block.count
        var field = base
        while field < end {
            let nameLength = Int(UnsafeRawPointer(field).loadUnaligned(as: UInt32.self))
            let valueLength = Int(UnsafeRawPointer(field).loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            let name = field + 8
            let value = name + nameLength + 1
            guard body(UnsafeBufferPointer(start: name, count: nameLength), UnsafeBufferPointer(start: value, count: valueLength))
            else { return }
            field = value + valueLength + 1
        }
    }

    static func sameIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { String.sameIgnoringCase(a[$0], b[$0]) }
    }
}

extension String {
    /// ASCII case-insensitive equality, enough for header names and tokens.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Compared in place, as every request looks up several names: zipping two UTF-8 views
        // decodes each string's representation at every step. Native strings always have
        // contiguous UTF-8; the views are zipped only for a bridged one.
        let inPlace = a.withContiguousStorageIfAvailable { a in
            b.withContiguousStorageIfAvailable { b in HTTPHeaders.sameIgnoringCase(a, b) }
        }
        return (inPlace ?? nil) ?? zip(a, b).allSatisfy(Self.sameIgnoringCase)
    }

    static func sameIgnoringCase(_ x: UInt8, _ y: UInt8) -> Bool {
        x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7a)
    }
}
