/// The ASCII bytes that JSON's grammar is written in, named so the parser and writer read like it.
extension UInt8 {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let period: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F
    static let digitZero: UInt8 = 0x30
    static let digitNine: UInt8 = 0x39
    static let colon: UInt8 = 0x3A
    static let capitalE: UInt8 = 0x45
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let letterB: UInt8 = 0x62
    static let letterE: UInt8 = 0x65
    static let letterF: UInt8 = 0x66
    static let letterN: UInt8 = 0x6E
    static let letterR: UInt8 = 0x72
    static let letterT: UInt8 = 0x74
    static let letterU: UInt8 = 0x75
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
}
