extension JSONParser.Cursor {
    /// Reads a number and returns its spelling unchanged, so it goes back out exactly as it came.
    ///
    /// The grammar is `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`; a number must also
    /// fit a finite `Double`, since that is what any client reading it back will turn it into.
    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        if bytes[index] == .minus { index += 1 }
        let integerStart = index
        if try requireDigit() == .digitZero {
            index += 1
            // `0` may only be followed by a fraction or exponent: `01` is a leading zero.
            if index < bytes.count, isDigit(bytes[index]) { throw failure(.invalidNumber) }
        } else {
            skipDigits()
        }
        let integerDigits = index - integerStart
        if index < bytes.count, bytes[index] == .period {
            index += 1
            try requireDigit()
            skipDigits()
        }
        var hasExponent = false
        if index < bytes.count, bytes[index] == .letterE || bytes[index] == .capitalE {
            hasExponent = true
            index += 1
            if index < bytes.count, bytes[index] == .plus || bytes[index] == .minus { index += 1 }
            try requireDigit()
            skipDigits()
        }
        let digits = UnsafeBufferPointer(rebasing: bytes[start..<index])
        let spelling = String(decoding: digits, as: UTF8.self)
        // Without an exponent only an integer part longer than Double's 309 digits can overflow,
        // so ordinary numbers skip the conversion.
        if hasExponent || integerDigits > 308 {
            guard let double = Double(spelling), double.isFinite else {
                throw failure(.numberOutOfRange, at: start)
            }
        }
        return spelling
    }

    /// The digit at the read position, which the grammar requires there.
    @discardableResult
    private func requireDigit() throws(JSONParseError) -> UInt8 {
        let byte = try peek()
        guard isDigit(byte) else { throw failure(.invalidNumber) }
        return byte
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8.digitZero ... .digitNine).contains(byte)
    }
}
