extension Int {
    /// A whole number spelled only in the ASCII digits 0-9, as a query argument, a header
    /// or a prefix length is: `Int.init(_:)` also reads a leading `+` or `-`, so that
    /// `+1` would pass for 1 and `-0` for 0, a spelling no client means.
    public init?<Text: StringProtocol>(decimalDigits text: Text) {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text) else {
            return nil
        }
        self = value
    }
}
