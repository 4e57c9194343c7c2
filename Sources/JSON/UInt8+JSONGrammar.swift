/// The ASCII bytes that JSON's grammar is written in, named so the parser and writer read like it.
/// Inlinable constants, so that the writer's inlined methods fold them in other modules too.
extension UInt8 {
    @inlinable static var tab: UInt8 { 0x09 }
    @inlinable static var lineFeed: UInt8 { 0x0A }
    @inlinable static var carriageReturn: UInt8 { 0x0D }
    @inlinable static var space: UInt8 { 0x20 }
    @inlinable static var quote: UInt8 { 0x22 }
    @inlinable static var plus: UInt8 { 0x2B }
    @inlinable static var comma: UInt8 { 0x2C }
    @inlinable static var minus: UInt8 { 0x2D }
    @inlinable static var period: UInt8 { 0x2E }
    @inlinable static var slash: UInt8 { 0x2F }
    @inlinable static var digitZero: UInt8 { 0x30 }
    @inlinable static var digitNine: UInt8 { 0x39 }
    @inlinable static var colon: UInt8 { 0x3A }
    @inlinable static var capitalE: UInt8 { 0x45 }
    @inlinable static var openBracket: UInt8 { 0x5B }
    @inlinable static var backslash: UInt8 { 0x5C }
    @inlinable static var closeBracket: UInt8 { 0x5D }
    @inlinable static var letterB: UInt8 { 0x62 }
    @inlinable static var letterE: UInt8 { 0x65 }
    @inlinable static var letterF: UInt8 { 0x66 }
    @inlinable static var letterN: UInt8 { 0x6E }
    @inlinable static var letterR: UInt8 { 0x72 }
    @inlinable static var letterT: UInt8 { 0x74 }
    @inlinable static var letterU: UInt8 { 0x75 }
    @inlinable static var openBrace: UInt8 { 0x7B }
    @inlinable static var closeBrace: UInt8 { 0x7D }
}
